package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.cache.exact.OriginSpan;
import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Makes concurrent identical misses share one upstream call: the first request for a key becomes
 * the leader and generates; those that arrive while it is in flight follow its answer. Followers
 * receive the leader's bytes as they are, so requests share a call only when they also ask for the
 * same form of answer (JSON, or SSE with or without the usage chunk), which the cache key ignores.
 * It does not depend on the store: a request whose lookup failed coalesces like any other, and a storable answer
 * stays joinable for {@link #LINGER} after its write, landed or failed.
 */
public final class Coalescer {

    /**
     * How long a storable answer stays joinable after its write ended: long enough for the requests of one burst whose
     * lookups ran before the write (or failed) to find it, short next to any entry's lifetime.
     */
    public static final Duration LINGER = Duration.ofSeconds(2);
    /** Completed answers lingering at once at most: their bytes stay bounded whatever the rate of failed writes. */
    static final int MAX_LINGERING = 1024;

    /** The outcome of {@link #join}: either this request leads (and must feed {@code answer}) or it follows. */
    record Role(boolean leader, SharedAnswer answer) {
    }

    /** The cache key and the form of the answer on the wire. */
    private record Flight(CacheKey key, boolean stream, boolean includeUsage) {
    }

    private final ConcurrentMap<Flight, SharedAnswer> inFlight = new ConcurrentHashMap<>();
    private final long maxAnswerBytes;
    private final FlightLeases fleet;
    private final Ticker ticker;
    /** Ends lingering answers; null: answers never linger (tests of the other behaviours). */
    private final ScheduledExecutorService timer;
    private final AtomicInteger lingering = new AtomicInteger();

    /** Coalescing in this process only, no lingering. */
    public Coalescer(long maxAnswerBytes) {
        this(maxAnswerBytes, null);
    }

    /** @param fleet the leases that coalesce across gateways too, or null for this process only */
    public Coalescer(long maxAnswerBytes, FlightLeases fleet) {
        this(maxAnswerBytes, fleet, Ticker.system(), null);
    }

    /**
     * @param ticker the clock a completed answer's age is read from
     * @param timer where lingering answers end (the gateway's event loops), or null for no lingering
     */
    public Coalescer(long maxAnswerBytes, FlightLeases fleet, Ticker ticker, ScheduledExecutorService timer) {
        this.maxAnswerBytes = maxAnswerBytes;
        this.fleet = fleet;
        this.ticker = ticker;
        this.timer = timer;
    }

    /** The leases that coalesce across gateways, or null when coalescing is per process. */
    public FlightLeases fleet() {
        return fleet;
    }

    /**
     * @param leaderSpan the traced span of the request, linked from its followers' spans should it lead; or null
     * @param servable whether the request may be served an answer found here (a completed one only as a cache hit
     *                 would be); when not, the request leads a new call, which later requests then join
     */
    Role join(CacheKey key, boolean stream, boolean includeUsage, String requestId, OriginSpan leaderSpan,
              Predicate<SharedAnswer> servable) {
        Flight flight = new Flight(key, stream, stream && includeUsage);
        SharedAnswer[] created = new SharedAnswer[1];
        SharedAnswer answer = inFlight.compute(flight, (k, current) -> {
            if (current != null && servable.test(current)) {
                return current;
            }
            created[0] = new SharedAnswer(maxAnswerBytes, requestId, leaderSpan, () -> inFlight.remove(k, created[0]),
                    this::linger, ticker);
            return created[0];
        });
        return new Role(answer == created[0], answer);
    }

    /** The answer in flight for the same key and form, or null: a request that finds one follows it without a lookup. */
    public SharedAnswer inFlight(CacheKey key, boolean stream, boolean includeUsage) {
        return inFlight.get(new Flight(key, stream, stream && includeUsage));
    }

    /** Answers being generated right now, or lingering (for stats). */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Cached answers were purged: every answer lingering after its write ends now, so none is served after the purge.
     * (A purge through another gateway reaches only its own; a lingering answer lives {@link #LINGER} at most.)
     */
    public void purged() {
        inFlight.values().forEach(SharedAnswer::endLingering);
    }

    private boolean linger(Runnable end) {
        if (timer == null) {
            return false;
        }
        if (lingering.incrementAndGet() > MAX_LINGERING) {
            lingering.decrementAndGet(); // enough bytes linger already: this one ends now
            return false;
        }
        timer.schedule(() -> {
            lingering.decrementAndGet();
            end.run();
        }, LINGER.toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }
}
