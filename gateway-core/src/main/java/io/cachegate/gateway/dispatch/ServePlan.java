package io.cachegate.gateway.dispatch;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.routing.RoutingRequest;
import io.cachegate.routing.ServeTarget;

/**
 * Where a request that no cache answered is sent: the backend that serves it (the route's, or its fallback's),
 * the model that answers, and what the replica choice weighs.
 *
 * @param requestedModel the model the request names ("" when it names none)
 * @param routing the request's token cost and, with prefix affinity, its prompt's block hashes
 */
public record ServePlan(BackendDispatch serving, ServeTarget target, String requestedModel, RoutingRequest routing) {

    public static final Exchange.Key<ServePlan> KEY = Exchange.Key.named("dispatch.plan");

    /** The model that answers: the fallback's when the request was moved, else the one it names. */
    public String servedModel() {
        return target.model().isEmpty() ? requestedModel : target.model();
    }
}
