package io.cachegate.gateway.request;

import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;

/**
 * Names the API a request calls: 400 for a malformed request, 404 for a path outside {@code /v1}. A query string
 * on an endpoint whose answers are cached is refused with 400: the cache key does not cover it, while a miss
 * would forward it, so a hit could answer a request the backend would have read differently.
 */
public final class EndpointStage implements Stage {

    @Override
    public void handle(Exchange x, Next next) {
        if (x.request().decoderResult().isFailure()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "Malformed HTTP request body");
        }
        String uri = x.request().uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        Endpoint endpoint = Endpoint.forPath(path);
        if (endpoint == null) {
            throw new ApiException(ErrorKind.NOT_FOUND, "Unknown path " + path + "; the API lives under /v1");
        }
        if (q >= 0 && endpoint != Endpoint.PASSTHROUGH && endpoint != Endpoint.MODELS) {
            throw new ApiException(ErrorKind.INVALID_REQUEST,
                    "A query string is not accepted on " + path + "; send every parameter in the body");
        }
        x.endpoint(endpoint);
        next.proceed(x);
    }
}
