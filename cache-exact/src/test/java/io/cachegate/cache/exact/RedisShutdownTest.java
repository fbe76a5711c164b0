package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisShutdownTest {

    @Test
    void of_aClientWhoseShutdownNeverEnds_returnsAfterTheLimit() {
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .build();
        try {
            Stuck client = new Stuck(resources);
            long t0 = System.nanoTime();

            boolean done = RedisShutdown.of(client, 0, "test", 200);

            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(done).isFalse();
            assertThat(client.asked).isTrue();
            assertThat(tookMillis).isBetween(150L, 5_000L);
        } finally {
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void of_aClientThatShutsDown_returnsTrue() {
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .build();
        try {
            assertThat(RedisShutdown.of(new Finished(resources), 0, "test", 2_000)).isTrue();
        } finally {
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    /** A client whose shutdown waits forever, as one whose channel never finishes closing does. */
    private static final class Stuck extends AbstractRedisClient {
        volatile boolean asked;

        Stuck(ClientResources resources) {
            super(resources);
        }

        @Override
        public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit unit) {
            asked = true;
            return new CompletableFuture<>();
        }
    }

    private static final class Finished extends AbstractRedisClient {
        Finished(ClientResources resources) {
            super(resources);
        }

        @Override
        public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit unit) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
