package io.cachegate.gateway.request;

import io.cachegate.config.Credential;
import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * Authenticate: the bearer key names the tenant and the key's access labels (401 without a known key, see
 * {@link HeadRules#credential}). Without tenants, all is "default".
 */
public final class AuthenticateStage implements Stage {

    private final Policy policy;

    public AuthenticateStage(Policy policy) {
        this.policy = policy;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (policy.authRequired()) {
            Credential credential = HeadRules.credential(policy, x.header(HttpHeaderNames.AUTHORIZATION));
            x.tenant(credential.tenant().id());
            x.keyLabels(credential.key().labels());
        }
        next.proceed(x);
    }
}
