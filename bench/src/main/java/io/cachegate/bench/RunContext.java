package io.cachegate.bench;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every worker of one run shares: options, phases, counters, the encoder; immutable but for the counters. */
final class RunContext {

    private static final Logger LOG = LoggerFactory.getLogger(RunContext.class);

    private final BenchOptions options;
    private final RunWindow window;
    private final RunStats stats;
    private final RequestEncoder encoder;
    private final List<InetSocketAddress> addresses;
    private final AtomicInteger nextAddress = new AtomicInteger();
    private final long timeoutNanos;
    private final SslContext tls;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean connectFailureLogged = new AtomicBoolean();

    RunContext(BenchOptions options, RunWindow window, RunStats stats, List<InetSocketAddress> addresses) {
        this.options = options;
        this.window = window;
        this.stats = stats;
        this.encoder = new RequestEncoder(options.target(), options.headers());
        this.tls = options.tls() ? clientTls() : null;
        this.addresses = List.copyOf(addresses);
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

    /** The target of the next connection: the targets in turn. */
    InetSocketAddress address() {
        return addresses.get(Math.floorMod(nextAddress.getAndIncrement(), addresses.size()));
    }

    /** A TLS handler for a new connection, or null when the target is plain HTTP. */
    SslHandler newTlsHandler(ByteBufAllocator alloc) {
        return tls == null ? null : tls.newHandler(alloc, options.target().getHost(), options.port());
    }

    /** Trusts any server certificate: the cost of TLS is the same, and the bench has no CA to check it against. */
    private static SslContext clientTls() {
        try {
            return SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
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
            LOG.warn("cannot connect to {}: {} (further connect failures are only counted)", addresses,
                    cause.toString());
        }
    }
}
