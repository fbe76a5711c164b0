package io.cachegate.routing;

import java.net.URI;

/**
 * A point-in-time view of one replica, for admin endpoints and gauges.
 *
 * @param externalLoadTokens the tokens its fresh load report adds; 0 when none or stale
 * @param requestLimit the requests it may have in flight now: fixed, or its adaptive limit
 * @param prefillBacklogTokens with kv_aware, the prompt tokens this gateway sent there uncached whose answer has not
 *                             begun (the prefills a new prompt waits behind); 0 otherwise
 */
public record ReplicaStatus(URI replica, CircuitState state, int inflightRequests, long inflightTokens,
                            long externalLoadTokens, int consecutiveFailures, int indexedBlocks,
                            int requestLimit, long prefillBacklogTokens) {
}
