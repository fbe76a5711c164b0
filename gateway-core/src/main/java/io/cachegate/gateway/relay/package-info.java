/**
 * The relay stage: sends a request to the replica reserved for it and streams the answer back with back-pressure
 * ({@link io.cachegate.gateway.relay.Relay}), retrying before the first byte and moving a too-long prompt, or a
 * backend that refuses every connection, to the next hop of the route's fallback chain; and the headers that cross
 * the proxy.
 */
package io.cachegate.gateway.relay;
