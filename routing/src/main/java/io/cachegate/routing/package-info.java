/**
 * Backend pools and replica choice, with no network types and no threads of their own.
 * {@link io.cachegate.routing.ReplicaSet} picks a replica per request (least loaded, prefix
 * affinity, round robin, or by the engines' KV-cache record, with rendezvous hashing placing
 * what no replica holds), enforces per-replica capacity through leases and ejects failing
 * replicas with a circuit breaker; {@link io.cachegate.routing.RetryPolicy} and
 * {@link io.cachegate.routing.FallbackResolver} are pure decisions the gateway applies.
 */
package io.cachegate.routing;
