package io.cachegate.gateway.cache.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MergeWorkersTest {

    @Test
    void pool_refusesWorkBeyondItsThreadsAndQueue_thenTakesWorkAgain() throws Exception {
        Executor pool = MergeWorkers.pool();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        Runnable blocked = () -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ran.incrementAndGet();
        };
        int accepted = 0;
        try {
            for (int i = 0; i < 10_000; i++) {
                pool.execute(blocked);
                accepted++;
            }
        } catch (RejectedExecutionException expected) {
            // the bound
        } finally {
            release.countDown();
        }
        int bound = Runtime.getRuntime().availableProcessors() + MergeWorkers.QUEUE;
        assertThat(accepted).isEqualTo(bound);

        CountDownLatch done = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ran.get() < bound && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        pool.execute(done::countDown);
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ran.get()).isEqualTo(bound);
    }
}
