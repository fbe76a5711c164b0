package io.cachegate.gateway.proxy;

import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.routing.BackendPool;
import java.util.Optional;

/**
 * Where one request goes and how: the backend pool, its timeouts, and what to do with the
 * client's Authorization header.
 *
 * @param routeLabel the route index for metrics, or "none"
 * @param replaceAuthorization when the client's key authenticated it to the gateway, it is not sent upstream
 * @param backendApiKey the backend's own key, sent as a bearer token when present
 */
public record ProxyTarget(String routeLabel, BackendPool pool, UpstreamSettings settings,
                          boolean replaceAuthorization, Optional<String> backendApiKey) {
}
