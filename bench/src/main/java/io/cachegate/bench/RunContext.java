package io.cachegate.bench;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every worker of one run shares: options, phases, counters, the encoder; immutable but for the counters. */
final class RunContext {

    private static final Logger LOG = LoggerFactory.getLogger(RunContext.class);

    private final BenchOptions options;
    private final RunWindow window;
    private final RunStats stats;
    private final RequestEncoder encoder;
    private final InetSocketAddress address;
    private final long timeoutNanos;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean connectFailureLogged = new AtomicBoolean();

    RunContext(BenchOptions options, RunWindow window, RunStats stats, InetSocketAddress address) {
        this.options = options;
        this.window = window;
        this.stats = stats;
        this.encoder = new RequestEncoder(options.target(), options.headers());
        this.address = address;
        this.timeoutNanos = options.requestTimeout().toNanos();
    }

    BenchOptions options() {
        return options;
    }

    boolean openLoop() {
        return options.mode() == BenchOptions.Mode.OPEN;
    }

    RunWindow window() {
        return window;
    }

    RunStats stats() {
        return stats;
    }

    RequestEncoder encoder() {
        return encoder;
    }

    InetSocketAddress address() {
        return address;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    /** The next request, or {@code null} after the source failed (the run is then aborted). */
    BenchRequest nextRequest() {
        try {
            BenchRequest request = options.source().next();
            if (request == null) {
                throw new IllegalStateException("the request source returned null");
            }
            return request;
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            return null;
        }
    }

    /** Set when the run cannot go on (a failing request source); the monitor then aborts it. */
    Throwable failure() {
        return failure.get();
    }

    /** Logs the first connect failure of the run, so its cause is known without a log line per request. */
    void connectFailed(Throwable cause) {
        if (connectFailureLogged.compareAndSet(false, true)) {
            LOG.warn("cannot connect to {}: {} (further connect failures are only counted)", address, cause.toString());
        }
    }
}
