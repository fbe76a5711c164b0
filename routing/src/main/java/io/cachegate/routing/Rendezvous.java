package io.cachegate.routing;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rendezvous (highest random weight) hashing: the order in which replicas are preferred for a prompt's placement key,
 * the same in every gateway with the same replica URLs and with no state, so gateways that never talk place one
 * prefix on one replica. Removing a replica moves only the keys it ranked first.
 */
final class Rendezvous {

    private static final long FNV_OFFSET = 0xCBF29CE484222325L;
    private static final long FNV_PRIME = 0x100000001B3L;

    private Rendezvous() {
    }

    /** A replica's own hash: of its URL's text, so it does not depend on the order replicas are listed in. */
    static long replicaHash(String uri) {
        long h = FNV_OFFSET;
        for (byte b : uri.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xFF;
            h *= FNV_PRIME;
        }
        return PrefixHashes.mix(h);
    }

    /** The weight of {@code replicaHash} for {@code key}: the highest weight is the replica preferred. */
    static long weight(long key, long replicaHash) {
        return PrefixHashes.mix(key ^ replicaHash);
    }

    /** Indexes into {@code candidates}, the most preferred for {@code key} first. */
    static int[] order(List<Replica> candidates, long key) {
        int n = candidates.size();
        int[] order = new int[n];
        long[] weights = new long[n];
        for (int i = 0; i < n; i++) {
            long w = weight(key, candidates.get(i).placementHash);
            // Insertion sort, descending: a backend has a handful of replicas.
            int j = i;
            while (j > 0 && Long.compareUnsigned(weights[j - 1], w) < 0) {
                weights[j] = weights[j - 1];
                order[j] = order[j - 1];
                j--;
            }
            weights[j] = w;
            order[j] = i;
        }
        return order;
    }
}
