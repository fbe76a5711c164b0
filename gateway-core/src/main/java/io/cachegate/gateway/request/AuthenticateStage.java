package io.cachegate.gateway.request;

import io.cachegate.config.Policy;
import io.cachegate.config.Tenant;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.Optional;

/** Authenticate: the bearer key names the tenant (401 without a known key). Without tenants, all is "default". */
public final class AuthenticateStage implements Stage {

    private final Policy policy;

    public AuthenticateStage(Policy policy) {
        this.policy = policy;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (policy.authRequired()) {
            x.tenant(tenant(x.header(HttpHeaderNames.AUTHORIZATION)));
        }
        next.proceed(x);
    }

    private String tenant(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(ErrorKind.INVALID_API_KEY,
                    "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.");
        }
        Optional<Tenant> tenant = policy.tenantForApiKey(header.substring(7).trim());
        if (tenant.isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_API_KEY, "Incorrect API key provided.");
        }
        return tenant.get().id();
    }
}
