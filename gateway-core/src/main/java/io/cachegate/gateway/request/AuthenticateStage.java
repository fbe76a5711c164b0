package io.cachegate.gateway.request;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.server.tls.ClientCertificates;
import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * Authenticate: the bearer key names the tenant and the key's access labels (401 without a known key), or a
 * verified TLS client certificate a tenant lists does (see {@link HeadRules#caller}). Without tenants, all is
 * "default".
 */
public final class AuthenticateStage implements Stage {

    private final Policy policy;

    public AuthenticateStage(Policy policy) {
        this.policy = policy;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (policy.authRequired()) {
            HeadRules.Caller caller = HeadRules.caller(policy, ClientCertificates.fingerprint(x.ctx().channel()),
                    x.header(HttpHeaderNames.AUTHORIZATION));
            x.tenant(caller.tenant());
            x.keyLabels(caller.labels());
        }
        next.proceed(x);
    }
}
