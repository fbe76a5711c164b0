package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Leases that make identical misses at different gateways share one upstream call: the first gateway to claim a
 * key generates its answer; the others wait for word that the generation has ended ({@link Listener}) and then read
 * the entry from the shared store. A lease is short and renewed by its holder (a heartbeat), so waiters that claim again
 * now and then take over within about one lease lifetime when the holder dies. Every method returns at once; futures and listeners complete on the
 * implementation's threads, so callers hop back to their own.
 */
public interface FlightLeases extends AutoCloseable {

    /** What a claim found. */
    enum Claim {
        /** This gateway holds the lease now: it generates the answer. */
        LEAD,
        /** This gateway already held it (another of its requests claimed first): join that request here. */
        OURS,
        /** Another gateway generated the answer moments ago: read the entry. */
        DONE,
        /** Another gateway is generating it: wait for its end. */
        ELSEWHERE,
        /** Leases cannot be used now (Redis down, not subscribed): go on alone. */
        UNAVAILABLE
    }

    /** Told once that the generation of a key ended; called on the implementation's thread, must not block. */
    interface Listener {
        /** @param done true when the answer was generated (its entry may be in the store), false when it failed */
        void ended(boolean done);
    }

    /**
     * Tries to take the lease of {@code key}. A lease taken ({@link Claim#LEAD}) lives {@code ttl} and is renewed
     * while this gateway is alive, until {@link #release} or at most {@code holdAtMost}: a gateway that dies stops
     * renewing, so its lease lapses within {@code ttl} and a waiter elsewhere can take it over by claiming again.
     */
    CompletableFuture<Claim> claim(CacheKey key, Duration ttl, Duration holdAtMost);

    /** This gateway's generation of {@code key} ended; {@code done} as in {@link Listener#ended}. Tells the waiters. */
    void release(CacheKey key, boolean done);

    /**
     * Asks to be told when the generation of {@code key} ends; false (nothing registered) when no word can come now
     * or the bound of waiters is reached. Register before claiming, so no word is lost between the two.
     */
    boolean listen(CacheKey key, Listener listener);

    void unlisten(CacheKey key, Listener listener);

    /** Registered listeners now (for stats and tests). */
    int listeners();

    @Override
    void close();
}
