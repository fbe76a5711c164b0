package io.cachegate.gateway.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LoopLagTest {

    private static final long MS = 1_000_000;

    @Test
    void here_aLoopHeldBusy_readsItsLateness_thenForgetsIt() throws Exception {
        EventLoopGroup group = Transport.NIO.newGroup(1, "loop-lag-test");
        try {
            LoopLag.start(group);
            EventLoop loop = group.next();
            Thread.sleep(50);

            loop.submit(() -> sleep(80)).sync(); // a task that holds the loop, as a burst of work would
            long busy = 0;
            for (long until = System.nanoTime() + 2_000 * MS; busy < 40 * MS && System.nanoTime() < until; ) {
                busy = loop.submit(LoopLag::here).get();
            }
            Thread.sleep(4 * LoopLag.PERIOD_MILLIS + 50); // two quiet readings replace the late ones
            long quiet = loop.submit(LoopLag::here).get();

            assertThat(busy).isGreaterThanOrEqualTo(40 * MS);
            assertThat(quiet).isLessThan(busy);
            assertThat(LoopLag.here()).isZero(); // this thread is no measured loop
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
