package io.cachegate.routing;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The prompt tokens of the prefixes recently placed on each replica (their footprint in its prefix cache), for
 * kv_aware's placement of a prefix that no replica holds: per placement key (a prompt's first block) the replica it
 * went to last and the most prompt tokens sent under it. A key unused for {@link #WINDOW_NANOS} stops counting;
 * at most {@link #MAX_KEYS} keys, the least recently placed dropped first. Not thread-safe: the owning
 * {@link ReplicaSet}'s lock guards it.
 *
 * <p>Why not the blocks the replicas' events say they hold: under eviction pressure every replica's cache is full,
 * so what they hold is equal; what differs is how many prefixes each is asked to keep.
 */
final class PlacementFootprints {

    /** Longer than a conversation's pause between turns; short enough that a workload's shift is seen in minutes. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** 4,096 keys x ~100 bytes: well under a megabyte per backend. */
    static final int MAX_KEYS = 4_096;

    private static final class Placement {
        final int replica;
        long tokens;
        long at;

        Placement(int replica, long tokens, long at) {
            this.replica = replica;
            this.tokens = tokens;
            this.at = at;
        }
    }

    /** Insertion order is placement order: {@link #placed} re-inserts, so the eldest is the least recently placed. */
    private final LinkedHashMap<Long, Placement> byKey = new LinkedHashMap<>();
    private final long[] footprint;

    PlacementFootprints(int replicas) {
        this.footprint = new long[replicas];
    }

    /** The replica position {@code key} was last placed on within the window, or -1. */
    int replicaOf(long key, long now) {
        expire(now);
        Placement p = byKey.get(key);
        return p == null ? -1 : p.replica;
    }

    /** The prompt tokens of the prefixes placed on the replica at {@code position} within the window. */
    long footprint(int position) {
        return footprint[position];
    }

    /** A prompt of {@code tokens} with placement key {@code key} went to the replica at {@code position}. */
    void placed(long key, int position, long tokens, long now) {
        Placement p = byKey.remove(key);
        long size = Math.max(0, tokens);
        if (p != null) {
            footprint[p.replica] -= p.tokens;
            size = Math.max(size, p.tokens);
        }
        byKey.put(key, new Placement(position, size, now));
        footprint[position] += size;
        if (byKey.size() > MAX_KEYS) {
            Iterator<Placement> eldest = byKey.values().iterator();
            Placement p0 = eldest.next();
            footprint[p0.replica] -= p0.tokens;
            eldest.remove();
        }
        expire(now);
    }

    private void expire(long now) {
        Iterator<Map.Entry<Long, Placement>> it = byKey.entrySet().iterator();
        while (it.hasNext()) {
            Placement eldest = it.next().getValue();
            if (now - eldest.at <= WINDOW_NANOS) {
                return;
            }
            footprint[eldest.replica] -= eldest.tokens;
            it.remove();
        }
    }
}
