package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.lucene.util.VectorUtil;

/**
 * The entries added to the Lucene index since its searcher was last refreshed, searched by comparing every
 * vector. They make an add searchable at once without a Lucene refresh per write: each refresh flushes a new
 * segment that every later search visits and that merges rewrite (when segments had HNSW graphs, each its own),
 * which is what made searches slow right after writes. The index refreshes lazily and then drops the entries its
 * new searcher holds.
 *
 * <p>Bounded by {@code capacity} entries (an add beyond it is refused and waits for a refresh instead). Writes
 * copy the map (at most {@code capacity} references) and publish it, so a search reads one immutable snapshot
 * without a lock: a snapshot taken before the Lucene searcher is acquired holds every entry that searcher may lack.
 */
final class RecentEntries {

    /** One buffered entry and the order it was added in. */
    private record Recent(IndexEntry entry, long sequence) {
    }

    /** What a search sees: the buffered entries at one instant. */
    static final class Snapshot {

        private static final Snapshot EMPTY = new Snapshot(Map.of());
        private final Map<String, Recent> byKey;

        private Snapshot(Map<String, Recent> byKey) {
            this.byKey = byKey;
        }

        boolean isEmpty() {
            return byKey.isEmpty();
        }

        /** True when {@code entryKey} is buffered: any version of it in an older Lucene searcher is stale. */
        boolean holds(String entryKey) {
            return byKey.containsKey(entryKey);
        }

        /** The {@code k} nearest buffered entries of {@code scope}, unexpired at {@code nowMillis} and readable. */
        List<Neighbour> search(String scope, float[] vector, int k, long nowMillis, ReadableLabels readable) {
            if (byKey.isEmpty()) {
                return List.of();
            }
            List<Neighbour> found = new ArrayList<>();
            for (Recent r : byKey.values()) {
                IndexEntry e = r.entry();
                if (e.scope().equals(scope) && SegmentFacts.live(e.expiresAtMillis(), nowMillis) && readable.admits(e.labels())) {
                    found.add(new Neighbour(e.entryKey(), VectorUtil.dotProduct(vector, e.vectorUnsafe()), e.text(),
                            e.createdAtMillis(), e.expiresAtMillis()));
                }
            }
            found.sort(NEAREST_FIRST);
            return found.size() <= k ? found : List.copyOf(found.subList(0, k));
        }
    }

    static final Comparator<Neighbour> NEAREST_FIRST = Comparator.comparingDouble(Neighbour::similarity).reversed();

    private final int capacity;
    private final Object lock = new Object();
    private volatile Snapshot current = Snapshot.EMPTY;
    private long lastSequence;  // guarded by lock

    RecentEntries(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative, was " + capacity);
        }
        this.capacity = capacity;
    }

    Snapshot snapshot() {
        return current;
    }

    int size() {
        return current.byKey.size();
    }

    /**
     * Buffers {@code entry} (replacing a buffered entry of the same key); call it after the entry is in the index
     * writer. False when full: the entry is then searchable only after the next refresh.
     */
    boolean offer(IndexEntry entry) {
        synchronized (lock) {
            Map<String, Recent> now = current.byKey;
            if (now.size() >= capacity && !now.containsKey(entry.entryKey())) {
                return false;
            }
            Map<String, Recent> next = new HashMap<>(now);
            next.put(entry.entryKey(), new Recent(entry, ++lastSequence));
            current = new Snapshot(next);
            return true;
        }
    }

    /** The sequence of the newest entry offered; every entry up to it is in the writer. */
    long lastSequence() {
        synchronized (lock) {
            return lastSequence;
        }
    }

    /** Drops the entries offered up to {@code sequence}: a searcher opened after it was taken holds them. */
    void dropThrough(long sequence) {
        removeIf(r -> r.sequence() <= sequence);
    }

    /** Drops the entry of {@code entryKey}, if buffered. */
    void remove(String entryKey) {
        removeIf(r -> r.entry().entryKey().equals(entryKey));
    }

    /** Drops every buffered entry matching {@code matches}. */
    void removeEntries(Predicate<IndexEntry> matches) {
        removeIf(r -> matches.test(r.entry()));
    }

    private void removeIf(Predicate<Recent> drop) {
        synchronized (lock) {
            Map<String, Recent> now = current.byKey;
            if (now.isEmpty() || now.values().stream().noneMatch(drop)) {
                return;
            }
            Map<String, Recent> next = new HashMap<>(now);
            next.values().removeIf(drop);
            current = next.isEmpty() ? Snapshot.EMPTY : new Snapshot(next);
        }
    }

    /**
     * {@code lucene}'s hits without stale versions of buffered entries, merged with {@code buffered} (the
     * snapshot's own hits), nearest first, at most {@code k}.
     */
    static List<Neighbour> merge(Snapshot snapshot, List<Neighbour> buffered, List<Neighbour> lucene, int k) {
        if (snapshot.isEmpty()) {
            return lucene;
        }
        List<Neighbour> all = new ArrayList<>(buffered);
        for (Neighbour n : lucene) {
            if (!snapshot.holds(n.entryKey())) {
                all.add(n);
            }
        }
        all.sort(NEAREST_FIRST);
        return all.size() <= k ? all : List.copyOf(all.subList(0, k));
    }
}
