package io.cachegate.gateway.request;

import io.cachegate.config.Credential;
import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.Optional;

/**
 * Authenticate: the bearer key names the tenant and the key's access labels (401 without a known key). Without
 * tenants, all is "default".
 */
public final class AuthenticateStage implements Stage {

    private final Policy policy;

    public AuthenticateStage(Policy policy) {
        this.policy = policy;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (policy.authRequired()) {
            Credential credential = credential(x.header(HttpHeaderNames.AUTHORIZATION));
            x.tenant(credential.tenant().id());
            x.keyLabels(credential.key().labels());
        }
        next.proceed(x);
    }

    /** The key is hashed and looked up by digest; no message quotes it, right or wrong. */
    private Credential credential(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(ErrorKind.INVALID_API_KEY,
                    "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.");
        }
        Optional<Credential> credential = policy.credential(header.substring(7).trim());
        if (credential.isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_API_KEY, "Incorrect API key provided.");
        }
        return credential.get();
    }
}
