package io.cachegate.gateway.telemetry.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LineWriterTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** A sink that keeps the lines; until {@code open} is counted down, each write waits for it (a stuck disk). */
    private static final class GatedSink implements LineSink {
        final CountDownLatch open;
        final CountDownLatch entered = new CountDownLatch(1);
        final List<String> lines = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        GatedSink(boolean stuck) {
            this.open = new CountDownLatch(stuck ? 1 : 0);
        }

        @Override
        public void write(byte[] line) throws java.io.IOException {
            entered.countDown();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
            lines.add(new String(line, StandardCharsets.UTF_8));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private static LogLine line(String text) {
        return LogLine.of(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @Timeout(30)
    void offer_sinkStuck_dropsAndCountsInsteadOfBlocking() throws Exception {
        GatedSink sink = new GatedSink(true);
        LineWriter writer = new LineWriter("access", sink, 16, registry);
        writer.offer(line("first"));
        assertThat(sink.entered.await(10, TimeUnit.SECONDS)).as("the thread took the first line").isTrue();

        long start = System.nanoTime();
        int accepted = 0;
        for (int i = 0; i < 1000; i++) {
            accepted += writer.offer(line("line " + i)) ? 1 : 0;
        }
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        // The thread holds "first" inside the stuck sink: the queue takes 16 more, the other 984 are dropped.
        assertThat(accepted).isEqualTo(16);
        assertThat(count("cachegate.log.lines.dropped", "log", "access", "reason", "queue_full")).isEqualTo(984);
        assertThat(tookMillis).as("offers never waited for the sink").isLessThan(5_000);

        sink.open.countDown();
        writer.close(Duration.ofSeconds(10));
        assertThat(sink.lines).hasSize(17).startsWith("first", "line 0");
        assertThat(count("cachegate.log.lines.written", "log", "access")).isEqualTo(17);
        assertThat(sink.closed).isTrue();
    }

    @Test
    @Timeout(30)
    void close_writesWhatIsQueued_thenRefusesMore() {
        GatedSink sink = new GatedSink(false);
        LineWriter writer = new LineWriter("sample", sink, 100, registry);
        for (int i = 0; i < 50; i++) {
            writer.offer(line("l" + i));
        }

        writer.close(Duration.ofSeconds(10));

        assertThat(sink.lines).hasSize(50).endsWith("l49");
        assertThat(writer.offer(line("late"))).isFalse();
    }

    @Test
    @Timeout(30)
    void close_sinkStuckForever_givesUpAfterTheWait() {
        GatedSink sink = new GatedSink(true);
        LineWriter writer = new LineWriter("access", sink, 100, registry);
        writer.offer(line("stuck"));

        long start = System.nanoTime();
        writer.close(Duration.ofMillis(200));

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
    }

    @Test
    @Timeout(30)
    void aLineThatCannotBeRendered_isCountedAndTheNextIsWritten() {
        GatedSink sink = new GatedSink(false);
        LineWriter writer = new LineWriter("access", sink, 100, registry);
        writer.offer(() -> {
            throw new IllegalStateException("broken");
        });
        writer.offer(line("fine"));

        writer.close(Duration.ofSeconds(10));

        assertThat(sink.lines).containsExactly("fine");
        assertThat(count("cachegate.log.lines.dropped", "log", "access", "reason", "write_failed")).isEqualTo(1);
    }
}
