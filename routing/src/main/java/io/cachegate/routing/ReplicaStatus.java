package io.cachegate.routing;

import java.net.URI;

/**
 * A point-in-time view of one replica, for admin endpoints and gauges.
 *
 * @param externalLoadTokens the tokens its fresh load report adds; 0 when none or stale
 */
public record ReplicaStatus(URI replica, CircuitState state, int inflightRequests, long inflightTokens,
                            long externalLoadTokens, int consecutiveFailures, int indexedBlocks) {
}
