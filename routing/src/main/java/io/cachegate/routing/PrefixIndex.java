package io.cachegate.routing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prefix block hashes recently routed to one replica: an LRU bounded by entries, a guess at what
 * its KV cache holds. Blocks are recorded last to first, so a prefix's leading blocks are always the
 * most recently used and evicted last; "block i present" then implies "blocks before i present",
 * which lets {@link #longestMatch} binary-search. Thread-safe (its own monitor). Public for the traffic
 * analyzer ({@code cachegate analyze}), which replays a log through one.
 */
public final class PrefixIndex {

    private final int maxEntries;
    private final LinkedHashMap<Long, Boolean> lru;

    public PrefixIndex(int maxEntries) {
        this.maxEntries = maxEntries;
        this.lru = new LinkedHashMap<>(Math.min(maxEntries, 1024) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PrefixIndex.this.maxEntries;
            }
        };
    }

    /** How many leading blocks of {@code hashes} this replica likely holds. */
    public synchronized int longestMatch(PrefixHashes hashes) {
        int lo = 0;
        int hi = hashes.size();
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            // containsKey does not count as an access: looking does not keep a block alive.
            if (lru.containsKey(hashes.get(mid - 1))) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    public synchronized void record(PrefixHashes hashes) {
        for (int i = hashes.size() - 1; i >= 0; i--) {
            lru.put(hashes.get(i), Boolean.TRUE);
        }
    }

    synchronized int size() {
        return lru.size();
    }
}
