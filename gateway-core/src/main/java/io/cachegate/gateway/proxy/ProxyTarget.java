package io.cachegate.gateway.proxy;

import io.cachegate.gateway.upstream.UpstreamSettings;
import io.netty.handler.codec.http.FullHttpRequest;
import io.cachegate.routing.ReplicaLease;
import io.cachegate.routing.ReplicaSet;
import io.cachegate.routing.RetryPolicy;
import io.cachegate.routing.RoutingRequest;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where one request goes and how: the backend's replicas and how to choose among them, its timeouts and retry
 * policy, and what to do with the client's Authorization header.
 *
 * @param routeLabel the route index for metrics, or "none"
 * @param routing what the replica choice weighs: the request's token cost, its prompt for prefix affinity
 * @param lease a replica already reserved for the request (by admission control); empty to choose at start
 * @param replaceAuthorization when the client's key authenticated it to the gateway, it is not sent upstream
 * @param backendApiKey the backend's own key, sent as a bearer token when present
 * @param servedModel the model that answers (a fallback's, when the request was moved), sent as X-Cachegate-Model
 * @param onContextLengthError when the backend rejects the prompt as too long (a 400 before anything reached the
 *                             client): the starter of the exchange on the route's fallback, which takes the
 *                             request over; empty when there is no fallback to try
 */
public record ProxyTarget(String routeLabel, ReplicaSet replicas, RoutingRequest routing, Optional<ReplicaLease> lease,
                          UpstreamSettings settings, RetryPolicy retry, boolean replaceAuthorization,
                          Optional<String> backendApiKey, String servedModel,
                          Supplier<Optional<Function<FullHttpRequest, ActiveExchange>>> onContextLengthError) {

    public ProxyTarget {
        Objects.requireNonNull(replicas, "replicas");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(servedModel, "servedModel");
        Objects.requireNonNull(onContextLengthError, "onContextLengthError");
    }
}
