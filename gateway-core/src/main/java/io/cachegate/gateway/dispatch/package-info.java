/**
 * What happens to a request no cache answered: its traffic class, token cost and target (the route's backend or
 * a hop of its fallback chain) in {@link io.cachegate.gateway.dispatch.ServePlanner}; admission control (admit, queue, reject
 * with Retry-After) in {@link io.cachegate.gateway.dispatch.AdmissionStage}; the replica reserved for it in
 * {@link io.cachegate.gateway.dispatch.ReplicaChoiceStage}. Wires the {@code admission} and {@code routing}
 * modules into the request path.
 */
package io.cachegate.gateway.dispatch;
