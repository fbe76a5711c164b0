package io.cachegate.cache.exact;

import io.cachegate.config.ExactCacheSettings;
import io.cachegate.config.Ticker;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Builds the store the policy asks for ({@code cache.exact.store}). */
public final class CacheStores {

    private CacheStores() {
    }

    /**
     * The configured store; a Redis-backed one starts connecting in the background and reports
     * through {@code health} (an in-memory one leaves it untouched but marks it available).
     */
    public static CacheStore create(ExactCacheSettings settings, StoreHealth health) {
        return create(settings, health, Ticker.system());
    }

    /** As {@link #create(ExactCacheSettings, StoreHealth)}, the in-process tier expiring entries by {@code ticker}. */
    public static CacheStore create(ExactCacheSettings settings, StoreHealth health, Ticker ticker) {
        return create(settings, health, ticker, null);
    }

    /**
     * As above, Lettuce's I/O running on {@code ioLoops} (the caller's own event loops; null: threads of its own)
     * with one Redis connection per loop, so a lookup made on a loop is sent and answered on that loop: no
     * hand-off to an I/O thread of Lettuce's and back per hit. The caller keeps ownership of the loops.
     */
    public static CacheStore create(ExactCacheSettings settings, StoreHealth health, Ticker ticker,
                                    EventLoopGroupProvider ioLoops) {
        return switch (settings.store()) {
            case MEMORY -> {
                health.connected(true);
                yield new MemoryCacheStore(settings.maxBytes(), ticker);
            }
            case REDIS -> redis(settings, health, ioLoops);
            case TIERED -> TieredCacheStore.coherent(new MemoryCacheStore(settings.l1MaxBytes(), ticker),
                    settings.l1Ttl(), redis(settings, health, ioLoops));
        };
    }

    static RedisCacheStore redis(ExactCacheSettings settings, StoreHealth health, EventLoopGroupProvider ioLoops) {
        return RedisCacheStore.connect(settings.redisUri(), clientResources(ioLoops),
                new EntryCodec((int) Math.min(Integer.MAX_VALUE, settings.compressAboveBytes())),
                settings.signingKey().map(k -> EntrySigner.hmacSha256(k.bytes())).orElse(EntrySigner.none()),
                RedisStoreOptions.of(settings.timeout(), settings.redisQueueSize(), settings.health()), health,
                ioLoops == null ? 1 : Math.max(1, ioLoops.threadPoolSize()));
    }

    /**
     * Lettuce's command timeouts fire on this timer. Its default wheel ticks every 100 ms, so a
     * 50 ms timeout would fire after 100 to 200 ms; a 5 ms tick keeps it within 5 ms of its value.
     */
    static final long TIMER_TICK_MILLIS = 5;

    /** Resources of one Redis store: it uses one connection, so a few threads are plenty. */
    static ClientResources clientResources() {
        return clientResources(null);
    }

    /**
     * As above, the I/O on {@code ioLoops} when not null (the commands' writes coalesced: {@link RedisFlushes}; their
     * timeouts on the loop that sends them: {@link LoopTimer}).
     */
    static ClientResources clientResources(EventLoopGroupProvider ioLoops) {
        ClientResources.Builder builder = ClientResources.builder();
        Timer wheel = new HashedWheelTimer(new DefaultThreadFactory("cachegate-redis-timer", true),
                TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS);
        if (ioLoops != null) {
            builder.eventLoopGroupProvider(ioLoops).nettyCustomizer(new RedisFlushes()).timer(new LoopTimer(wheel));
        } else {
            builder.timer(wheel);
        }
        return builder
                .addressResolverGroup(RedisDns.RESOLVERS) // off the gateway's loops: RedisDns says why
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                // Lettuce's default backs off to 30s between reconnects; a cache should be back
                // within a second of Redis.
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
    }
}
