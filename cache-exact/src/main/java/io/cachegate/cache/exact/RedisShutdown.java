package io.cachegate.cache.exact;

import io.lettuce.core.AbstractRedisClient;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuts a Lettuce client down within a bound. Lettuce's own {@code shutdown(quietPeriod, timeout)} bounds only the
 * shutdown of its threads: it first waits, without limit, for every connection's channel to close, and a channel
 * whose close never completes (an event loop already stopping, a connect still under way) would hold a gateway's
 * shutdown, and the test or deployment waiting on it, forever. Here the whole shutdown is waited for at most
 * {@link #LIMIT_MILLIS}; past that it goes on in the background and the gateway carries on closing.
 */
public final class RedisShutdown {

    /** How long a client's shutdown is waited for: its own 2 s for its threads, and the closes before them. */
    static final long LIMIT_MILLIS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(RedisShutdown.class);

    private RedisShutdown() {
    }

    /** Shuts {@code client} down (a quiet period of {@code quietMillis}, 2 s for its threads), waiting at most 5 s. */
    public static void of(AbstractRedisClient client, long quietMillis, String what) {
        of(client, quietMillis, what, LIMIT_MILLIS);
    }

    /** As above, waiting at most {@code limitMillis}; true when the client finished shutting down in time. */
    static boolean of(AbstractRedisClient client, long quietMillis, String what, long limitMillis) {
        try {
            client.shutdownAsync(quietMillis, 2_000, TimeUnit.MILLISECONDS).get(limitMillis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            LOG.warn("{}: the Redis client did not shut down within {} ms; carrying on without it", what,
                    limitMillis);
        } catch (ExecutionException e) {
            LOG.warn("{}: the Redis client's shutdown failed: {}", what, RedisCacheStore.rootMessage(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }
}
