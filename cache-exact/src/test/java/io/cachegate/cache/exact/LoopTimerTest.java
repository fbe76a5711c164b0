package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopTimerTest {

    private final HashedWheelTimer wheel = new HashedWheelTimer(5, TimeUnit.MILLISECONDS);
    private final LoopTimer timer = new LoopTimer(wheel);
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        timer.stop();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void onALoop_firesOnThatLoop_notBeforeItsDelay() throws Exception {
        CompletableFuture<Thread> firedOn = new CompletableFuture<>();
        long[] asked = new long[1];
        Timeout timeout = loop.submit(() -> {
            asked[0] = System.nanoTime();
            return timer.newTimeout(t -> firedOn.complete(Thread.currentThread()), 30, TimeUnit.MILLISECONDS);
        }).get(5, TimeUnit.SECONDS);

        Thread thread = firedOn.get(5, TimeUnit.SECONDS);
        long waited = System.nanoTime() - asked[0];
        assertThat(loop.inEventLoop(thread)).as("fired on the loop that asked").isTrue();
        assertThat(waited).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timeout.timer()).isSameAs(timer);
    }

    @Test
    void cancelled_neverFires_evenFromAnotherThread() throws Exception {
        CountDownLatch fired = new CountDownLatch(1);
        Timeout onLoop = loop.submit(() -> timer.newTimeout(t -> fired.countDown(), 20, TimeUnit.MILLISECONDS))
                .get(5, TimeUnit.SECONDS);
        Timeout cancelledThere = loop.submit(() -> timer.newTimeout(t -> fired.countDown(), 20, TimeUnit.MILLISECONDS))
                .get(5, TimeUnit.SECONDS);

        assertThat(loop.submit(onLoop::cancel).get(5, TimeUnit.SECONDS)).isTrue(); // as Lettuce does: on the loop
        assertThat(cancelledThere.cancel()).isTrue(); // and from a thread of another loop
        assertThat(fired.await(200, TimeUnit.MILLISECONDS)).as("neither fired").isFalse();
        assertThat(onLoop.isCancelled()).isTrue();
        assertThat(cancelledThere.isExpired()).isFalse();
    }

    @Test
    void offALoop_theWheelTakesIt() throws Exception {
        AtomicReference<Timeout> seen = new AtomicReference<>();
        CountDownLatch fired = new CountDownLatch(1);
        Timeout timeout = timer.newTimeout(t -> {
            seen.set(t);
            fired.countDown();
        }, 10, TimeUnit.MILLISECONDS);

        assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(timeout.timer()).as("the wheel's own timeout").isSameAs(wheel);
        assertThat(seen.get()).isSameAs(timeout);
    }

    @Test
    void aFailingTask_leavesTheLoopServing() throws Exception {
        loop.submit(() -> timer.newTimeout(t -> {
            throw new IllegalStateException("boom");
        }, 1, TimeUnit.MILLISECONDS)).get(5, TimeUnit.SECONDS);
        CountDownLatch next = new CountDownLatch(1);
        loop.submit(() -> timer.newTimeout(t -> next.countDown(), 20, TimeUnit.MILLISECONDS)).get(5, TimeUnit.SECONDS);
        assertThat(next.await(5, TimeUnit.SECONDS)).isTrue();
    }
}
