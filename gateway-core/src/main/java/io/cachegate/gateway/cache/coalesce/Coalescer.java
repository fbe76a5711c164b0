package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.cache.exact.OriginSpan;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Makes concurrent identical misses share one upstream call: the first request for a key becomes
 * the leader and generates; those that arrive while it is in flight follow its answer. Followers
 * receive the leader's bytes as they are, so requests share a call only when they also ask for the
 * same form of answer (JSON, or SSE with or without the usage chunk), which the cache key ignores.
 */
public final class Coalescer {

    /** The outcome of {@link #join}: either this request leads (and must feed {@code answer}) or it follows. */
    record Role(boolean leader, SharedAnswer answer) {
    }

    /** The cache key and the form of the answer on the wire. */
    private record Flight(CacheKey key, boolean stream, boolean includeUsage) {
    }

    private final ConcurrentMap<Flight, SharedAnswer> inFlight = new ConcurrentHashMap<>();
    private final long maxAnswerBytes;
    private final FlightLeases fleet;

    /** Coalescing in this process only. */
    public Coalescer(long maxAnswerBytes) {
        this(maxAnswerBytes, null);
    }

    /** @param fleet the leases that coalesce across gateways too, or null for this process only */
    public Coalescer(long maxAnswerBytes, FlightLeases fleet) {
        this.maxAnswerBytes = maxAnswerBytes;
        this.fleet = fleet;
    }

    /** The leases that coalesce across gateways, or null when coalescing is per process. */
    public FlightLeases fleet() {
        return fleet;
    }

    /** @param leaderSpan the traced span of the request, linked from its followers' spans should it lead; or null */
    Role join(CacheKey key, boolean stream, boolean includeUsage, String requestId, OriginSpan leaderSpan) {
        Flight flight = new Flight(key, stream, stream && includeUsage);
        SharedAnswer[] created = new SharedAnswer[1];
        SharedAnswer answer = inFlight.computeIfAbsent(flight, k -> {
            created[0] = new SharedAnswer(maxAnswerBytes, requestId, leaderSpan, () -> inFlight.remove(k, created[0]));
            return created[0];
        });
        return new Role(answer == created[0], answer);
    }

    /** The answer in flight for the same key and form, or null: a request that finds one follows it without a lookup. */
    public SharedAnswer inFlight(CacheKey key, boolean stream, boolean includeUsage) {
        return inFlight.get(new Flight(key, stream, stream && includeUsage));
    }

    /** Answers being generated right now (for stats). */
    public int inFlight() {
        return inFlight.size();
    }
}
