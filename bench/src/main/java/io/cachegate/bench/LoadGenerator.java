package io.cachegate.bench;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one load test: starts the event loops and their {@link Worker}s, watches the clock from
 * the calling thread (progress line, drain deadline) and assembles the {@link BenchReport}.
 */
public final class LoadGenerator {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** How often the monitor looks at the clock and for a failed run, besides the workers finishing. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** After an abort, how long the loops get to close their connections. */
    private static final long ABORT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private LoadGenerator() {
    }

    /**
     * Runs the load described by {@code options} and blocks until it is over: warmup, recorded
     * duration, then the drain of requests still in flight (bounded by the request timeout).
     *
     * @throws IllegalArgumentException if the target host cannot be resolved
     * @throws IllegalStateException if the request source failed
     * @throws InterruptedException if the calling thread is interrupted; the run is then stopped
     */
    public static BenchReport run(BenchOptions options) throws InterruptedException {
        return run(options, System.err);
    }

    static BenchReport run(BenchOptions options, PrintStream progressOut) throws InterruptedException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        addresses.add(resolve(options.target(), options.port()));
        for (URI also : options.alsoTargets()) {
            addresses.add(resolve(also, also.getPort() >= 0 ? also.getPort() : options.port()));
        }
        Transport transport = Transport.detect();
        int threads = options.effectiveIoThreads();
        MultiThreadIoEventLoopGroup group = transport.newGroup(threads);
        try {
            List<EventLoop> loops = startLoops(group);
            RunStats stats = new RunStats();
            RunWindow window = RunWindow.of(System.nanoTime(), options.warmup(), options.duration(),
                    options.requestTimeout());
            RunContext run = new RunContext(options, window, stats, addresses);
            CountDownLatch finished = new CountDownLatch(threads);
            List<Worker> workers = new ArrayList<>(threads);
            int backlog = Math.max(1, (options.effectiveMaxBacklog() + threads - 1) / threads);
            for (int i = 0; i < threads; i++) {
                int share = options.connections() / threads + (i < options.connections() % threads ? 1 : 0);
                workers.add(new Worker(loops.get(i), transport, run, i, threads, share, backlog, finished::countDown));
            }
            Progress progress = null;
            if (options.progress()) {
                progress = new Progress(progressOut, window, stats, options.mode());
                progressOut.printf(Locale.ROOT, "bench %s -> %s, %s, %d %s io thread(s), warmup %ss, duration %ss%n",
                        options.mode() == BenchOptions.Mode.OPEN ? "open loop" : "closed loop", options.target(),
                        options.mode() == BenchOptions.Mode.OPEN
                                ? String.format(Locale.ROOT, "%.0f req/s over up to %d connections",
                                        options.ratePerSecond(), options.connections())
                                : options.connections() + " connections",
                        threads, transport.name(), seconds(options.warmup()), seconds(options.duration()));
            }
            for (Worker worker : workers) {
                worker.loop().execute(worker::start);
            }
            try {
                await(finished, workers, run, progress);
            } catch (InterruptedException e) {
                abortAll(workers);
                finished.await(ABORT_GRACE_NANOS, TimeUnit.NANOSECONDS);
                throw e;
            }
            if (run.failure() != null) {
                throw new IllegalStateException("the request source failed: " + run.failure(), run.failure());
            }
            long lastEnd = window.endNanos();
            for (Worker worker : workers) {
                long end = worker.lastRecordedEndNanos();
                if (end != 0 && end - lastEnd > 0) {
                    lastEnd = end;
                }
            }
            BenchReport report = stats.report((lastEnd - window.warmupEndNanos()) / 1e9);
            if (progress != null) {
                progress.done(report);
            }
            return report;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** Waits for the workers, printing progress each second and aborting at the drain deadline. */
    private static void await(CountDownLatch finished, List<Worker> workers, RunContext run, Progress progress)
            throws InterruptedException {
        RunWindow window = run.window();
        long nextLine = window.startNanos() + SECOND;
        long abortedAt = 0;
        while (true) {
            long now = System.nanoTime();
            long wake = now + POLL_NANOS;
            if (progress != null && nextLine - wake < 0) {
                wake = nextLine;
            }
            if (abortedAt == 0 && window.deadlineNanos() - wake < 0) {
                wake = window.deadlineNanos();
            }
            if (finished.await(Math.max(0, wake - now), TimeUnit.NANOSECONDS)) {
                return;
            }
            now = System.nanoTime();
            if (progress != null && now - nextLine >= 0) {
                progress.line(now);
                nextLine += SECOND;
            }
            if (abortedAt == 0 && (now - window.deadlineNanos() >= 0 || run.failure() != null)) {
                abortAll(workers);
                abortedAt = now;
            } else if (abortedAt != 0 && now - abortedAt > ABORT_GRACE_NANOS) {
                return; // a loop did not wind down; report what was counted
            }
        }
    }

    private static void abortAll(List<Worker> workers) {
        for (Worker worker : workers) {
            worker.loop().execute(worker::abort);
        }
    }

    /** Starts every loop thread before the clock starts, so thread start-up is not charged to the first requests. */
    private static List<EventLoop> startLoops(MultiThreadIoEventLoopGroup group) throws InterruptedException {
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor executor : group) {
            EventLoop loop = (EventLoop) executor;
            loop.submit(() -> { }).await();
            loops.add(loop);
        }
        return loops;
    }

    private static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toNanos(), 9).stripTrailingZeros().toPlainString();
    }

    private static InetSocketAddress resolve(URI target, int port) {
        InetSocketAddress address = new InetSocketAddress(target.getHost(), port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve the target host " + target.getHost());
        }
        return address;
    }

    /** The once-a-second line on stderr. Monitor thread only. */
    private static final class Progress {
        private final PrintStream out;
        private final RunWindow window;
        private final RunStats stats;
        private final BenchOptions.Mode mode;
        private long lastNanos;
        private long lastCompleted;

        Progress(PrintStream out, RunWindow window, RunStats stats, BenchOptions.Mode mode) {
            this.out = out;
            this.window = window;
            this.stats = stats;
            this.mode = mode;
            this.lastNanos = window.startNanos();
        }

        void line(long now) {
            stats.collect();
            long completed = stats.endedCount();
            double rate = (completed - lastCompleted) / ((now - lastNanos) / 1e9);
            lastCompleted = completed;
            lastNanos = now;
            String phase = window.inWarmup(now) ? "warmup" : now - window.endNanos() < 0 ? "measure" : "drain";
            double p99 = stats.p99SoFarMs();
            out.printf(Locale.ROOT, "bench %s %5.0fs %-7s sent %d  done %d  errors %d  rate %.0f/s  p99 %s%n",
                    mode.name().toLowerCase(Locale.ROOT), (now - window.startNanos()) / 1e9, phase,
                    stats.sentCount(), completed, stats.failedCount(), rate,
                    p99 < 0 ? "-" : String.format(Locale.ROOT, "%.3f ms", p99));
        }

        void done(BenchReport report) {
            out.printf(Locale.ROOT, "bench done: %d requests, %d errors, %.1f req/s, p99 %.3f ms%n",
                    report.requests(), report.errors(), report.throughput(), report.total().p99Ms());
        }
    }
}
