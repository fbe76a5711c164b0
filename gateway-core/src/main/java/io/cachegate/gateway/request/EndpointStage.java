package io.cachegate.gateway.request;

import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;

/**
 * Names the API a request calls: 400 for a malformed request, 404 for a path outside {@code /v1}, 400 for a query
 * string on an endpoint whose answers are cached ({@link HeadRules#endpoint}; the front door checks it first).
 */
public final class EndpointStage implements Stage {

    @Override
    public void handle(Exchange x, Next next) {
        if (x.request().decoderResult().isFailure()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "Malformed HTTP request body");
        }
        Endpoint endpoint = HeadRules.endpoint(x.request().uri());
        x.endpoint(endpoint);
        next.proceed(x);
    }
}
