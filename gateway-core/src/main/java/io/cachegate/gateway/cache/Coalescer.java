package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.CacheKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Makes concurrent identical misses share one upstream call: the first request for a key becomes
 * the leader and generates; those that arrive while it is in flight follow its answer.
 */
final class Coalescer {

    /** The outcome of {@link #join}: either this request leads (and must feed {@code answer}) or it follows. */
    record Role(boolean leader, SharedAnswer answer) {
    }

    private final ConcurrentMap<CacheKey, SharedAnswer> inFlight = new ConcurrentHashMap<>();
    private final long maxAnswerBytes;

    Coalescer(long maxAnswerBytes) {
        this.maxAnswerBytes = maxAnswerBytes;
    }

    Role join(CacheKey key) {
        SharedAnswer[] created = new SharedAnswer[1];
        SharedAnswer answer = inFlight.computeIfAbsent(key, k -> {
            created[0] = new SharedAnswer(maxAnswerBytes, () -> inFlight.remove(k, created[0]));
            return created[0];
        });
        return new Role(answer == created[0], answer);
    }

    /** Answers being generated right now (for stats). */
    int inFlight() {
        return inFlight.size();
    }
}
