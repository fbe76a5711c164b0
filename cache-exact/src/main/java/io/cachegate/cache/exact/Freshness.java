package io.cachegate.cache.exact;

/**
 * Where a stored entry stands at one moment, judged from when it was generated and the TTL it was written with:
 * fresh (a hit), stale but within the window the reader allows (it may answer when the backend cannot), or past both
 * (as good as gone). The store keeps an entry for its TTL plus the stale window it was written with; the reader's
 * window, which a reload may have narrowed, is the one that counts.
 */
public enum Freshness {
    /** Within its TTL. */
    FRESH,
    /** Past its TTL, within the stale window. */
    STALE,
    /** Past its TTL and the stale window. */
    EXPIRED;

    /**
     * Judges {@code entry} at {@code nowMillis} (wall clock) for a reader allowing {@code staleWindowMillis} past the
     * TTL (0: none). An entry kept only while fresh ({@link CacheEntry#freshForMillis()} 0) is always fresh.
     */
    public static Freshness of(CacheEntry entry, long nowMillis, long staleWindowMillis) {
        if (entry.freshAt(nowMillis)) {
            return FRESH;
        }
        long pastTtl = nowMillis - entry.createdAtMillis() - entry.freshForMillis();
        return pastTtl < staleWindowMillis ? STALE : EXPIRED;
    }

    /** How long past its TTL {@code entry} is at {@code nowMillis}; 0 while fresh. */
    public static long pastTtlMillis(CacheEntry entry, long nowMillis) {
        return entry.freshAt(nowMillis) ? 0 : nowMillis - entry.createdAtMillis() - entry.freshForMillis();
    }
}
