package io.cachegate.gateway.telemetry.log;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes lines off the event loop: {@link #offer} puts a line in a bounded queue and returns at once, dropping and
 * counting the line when the queue is full; one daemon thread renders the lines, writes them to the sink and
 * flushes it whenever the queue runs empty. {@link #close} writes what is queued within a time limit.
 *
 * <p>Hand-written rather than logback's {@code AsyncAppender}: with {@code neverBlock} that drops silently and
 * exposes no drop count, and these lines are data (one per request, rendered lazily), not log events with levels
 * and patterns; an {@code ArrayBlockingQueue} and one thread are all it takes.
 */
public final class LineWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LineWriter.class);

    private final String name;
    private final ArrayBlockingQueue<LogLine> queue;
    private final LineSink sink;
    private final Counter written;
    private final Counter queueFull;
    private final Counter failed;
    private final Thread thread;
    private volatile boolean closing;
    private boolean failing;

    /**
     * Starts the writer's thread.
     *
     * @param name the log's name, the {@code log} tag of its counters: {@code access} or {@code sample}
     * @param capacity lines waiting at most
     */
    public LineWriter(String name, LineSink sink, int capacity, MeterRegistry registry) {
        this.name = name;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.sink = sink;
        this.written = Counter.builder("cachegate.log.lines.written").tag("log", name)
                .description("Log lines written to their sink").register(registry);
        this.queueFull = dropped(registry, "queue_full");
        this.failed = dropped(registry, "write_failed");
        this.thread = new Thread(this::run, "cachegate-log-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private Counter dropped(MeterRegistry registry, String reason) {
        return Counter.builder("cachegate.log.lines.dropped").tag("log", name).tag("reason", reason)
                .description("Log lines lost: the writer's queue was full, or the line could not be rendered or written")
                .register(registry);
    }

    /** Queues {@code line}; never waits. False (and counted) when the queue is full or the writer is closed. */
    public boolean offer(LogLine line) {
        if (closing || !queue.offer(line)) {
            queueFull.increment();
            return false;
        }
        return true;
    }

    private void run() {
        try {
            while (!closing || !queue.isEmpty()) {
                LogLine line = queue.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    continue;
                }
                write(line);
                for (LogLine more = queue.poll(); more != null; more = queue.poll()) {
                    write(more);
                }
                flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // close gave up waiting: what is still queued is lost
        }
    }

    private void write(LogLine line) {
        try {
            sink.write(line.render());
            written.increment();
            failing = false;
        } catch (IOException | RuntimeException e) {
            failed.increment();
            if (!failing) { // once per run of failures, not once per line
                failing = true;
                log.warn("{} log: a line could not be written ({}); lines are dropped and counted until one is", name,
                        e.toString());
            }
        }
    }

    private void flush() {
        try {
            sink.flush();
        } catch (IOException e) {
            log.warn("{} log: flush failed ({})", name, e.toString());
        }
    }

    /** Lines waiting in the queue. */
    public int queued() {
        return queue.size();
    }

    /** Stops accepting lines, writes those queued for at most {@code wait}, then closes the sink. */
    public void close(Duration wait) {
        closing = true;
        try {
            thread.join(Math.max(1, wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
            log.warn("{} log: {} lines still queued after {}; they are lost", name, queue.size(), wait);
            return; // the thread may still be inside the sink: leave it to the daemon's end
        }
        try {
            sink.close();
        } catch (IOException e) {
            log.warn("{} log: close failed ({})", name, e.toString());
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
