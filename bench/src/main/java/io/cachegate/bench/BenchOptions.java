package io.cachegate.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a run is driven. Build with {@link #builder(URI, RequestSource)}; every field is validated
 * when the record is constructed and a bad value is named in the message.
 *
 * @param target base URL, {@code http} or {@code https} (TLS trusting any certificate: a benchmark measures, it
 *     does not authenticate); request paths are appended to its path
 * @param mode {@link Mode#CLOSED} or {@link Mode#OPEN}
 * @param connections closed loop: the number of connections, each with one request in flight;
 *     open loop: the most connections opened
 * @param ratePerSecond open loop: requests per second (ignored by the closed loop)
 * @param duration how long recorded traffic is sent
 * @param warmup how long traffic is sent, and not recorded, before {@code duration} begins
 * @param source where requests come from
 * @param headers extra request headers (e.g. {@code Authorization}), in order
 * @param requestTimeout time from send to the end of the answer before a request counts as timed out
 * @param progress print a progress line on stderr once a second
 * @param ioThreads event-loop threads; 0 picks {@code min(connections, max(1, min(4, cores / 2)))}
 * @param maxBacklog open loop: how many due requests may wait for a connection before further ones
 *     count as {@code generator_backlog} errors; 0 picks {@code rate * requestTimeout} (at least
 *     64, at most 1,000,000): a request queued past that would have waited longer than the timeout
 * @param http2 speak HTTP/2 by prior knowledge (h2c) to an {@code http://} target, one stream per request and still
 *     one request in flight per connection, so the figures compare with HTTP/1.1's on the same terms
 * @param alsoTargets more targets of the same scheme serving the same API (gateways of one fleet): connections are
 *     opened to {@code target} and these in turn, so the load spreads over them as a round-robin load balancer
 *     in front of them would spread it
 */
public record BenchOptions(URI target, Mode mode, int connections, double ratePerSecond, Duration duration,
                           Duration warmup, RequestSource source, Map<String, String> headers,
                           Duration requestTimeout, boolean progress, int ioThreads, int maxBacklog, boolean http2,
                           List<URI> alsoTargets) {

    /** Closed loop: each connection sends when its previous answer completes. Open loop: a fixed arrival rate. */
    public enum Mode {
        CLOSED,
        OPEN;

        /** Parses {@code closed} or {@code open}, ignoring case. */
        public static Mode parse(String text) {
            try {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("mode must be closed or open (was \"" + text + "\")", e);
            }
        }
    }

    public BenchOptions {
        List<String> problems = new ArrayList<>();
        if (target == null) {
            problems.add("target must be set");
        } else if (!("http".equalsIgnoreCase(target.getScheme()) || "https".equalsIgnoreCase(target.getScheme()))
                || target.getHost() == null) {
            problems.add("target must be an http(s)://host[:port] URL (was " + target + ")");
        }
        if (mode == null) {
            problems.add("mode must be set");
        }
        if (connections < 1) {
            problems.add("connections must be >= 1 (was " + connections + ")");
        }
        if (mode == Mode.OPEN && !(ratePerSecond > 0 && Double.isFinite(ratePerSecond))) {
            problems.add("ratePerSecond must be > 0 in open mode (was " + ratePerSecond + ")");
        }
        if (duration == null || duration.isNegative() || duration.isZero()) {
            problems.add("duration must be > 0 (was " + duration + ")");
        }
        if (warmup == null || warmup.isNegative()) {
            problems.add("warmup must be >= 0 (was " + warmup + ")");
        }
        if (source == null) {
            problems.add("source must be set");
        }
        if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
            problems.add("requestTimeout must be > 0 (was " + requestTimeout + ")");
        }
        if (ioThreads < 0) {
            problems.add("ioThreads must be >= 0 (was " + ioThreads + ")");
        }
        if (maxBacklog < 0) {
            problems.add("maxBacklog must be >= 0 (was " + maxBacklog + ")");
        }
        if (http2 && target != null && "https".equalsIgnoreCase(target.getScheme())) {
            problems.add("http2 is cleartext (h2c) only: use an http:// target (was " + target + ")");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("invalid bench options: " + String.join("; ", problems));
        }
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        alsoTargets = alsoTargets == null ? List.of() : List.copyOf(alsoTargets);
    }

    /** One target. */
    public BenchOptions(URI target, Mode mode, int connections, double ratePerSecond, Duration duration,
                        Duration warmup, RequestSource source, Map<String, String> headers,
                        Duration requestTimeout, boolean progress, int ioThreads, int maxBacklog, boolean http2) {
        this(target, mode, connections, ratePerSecond, duration, warmup, source, headers, requestTimeout,
                progress, ioThreads, maxBacklog, http2, List.of());
    }

    /** HTTP/1.1. */
    public BenchOptions(URI target, Mode mode, int connections, double ratePerSecond, Duration duration,
                        Duration warmup, RequestSource source, Map<String, String> headers,
                        Duration requestTimeout, boolean progress, int ioThreads, int maxBacklog) {
        this(target, mode, connections, ratePerSecond, duration, warmup, source, headers, requestTimeout,
                progress, ioThreads, maxBacklog, false);
    }

    /** The constructor of the original specification: automatic {@code ioThreads} and {@code maxBacklog}. */
    public BenchOptions(URI target, Mode mode, int connections, double ratePerSecond, Duration duration,
                        Duration warmup, RequestSource source, Map<String, String> headers,
                        Duration requestTimeout, boolean progress) {
        this(target, mode, connections, ratePerSecond, duration, warmup, source, headers, requestTimeout,
                progress, 0, 0);
    }

    /**
     * A builder with the defaults: closed loop, 16 connections, 30 s after a 5 s warmup, 30 s
     * request timeout, no progress line.
     */
    public static Builder builder(URI target, RequestSource source) {
        return new Builder(target, source);
    }

    /** A builder holding these options. */
    public Builder toBuilder() {
        Builder b = new Builder(target, source);
        b.mode = mode;
        b.connections = connections;
        b.ratePerSecond = ratePerSecond;
        b.duration = duration;
        b.warmup = warmup;
        b.headers.putAll(headers);
        b.requestTimeout = requestTimeout;
        b.progress = progress;
        b.ioThreads = ioThreads;
        b.maxBacklog = maxBacklog;
        b.http2 = http2;
        b.alsoTargets = alsoTargets;
        return b;
    }

    /** Whether the target speaks TLS. */
    boolean tls() {
        return "https".equalsIgnoreCase(target.getScheme());
    }

    /** The target's port, or its scheme's default. */
    int port() {
        return target.getPort() >= 0 ? target.getPort() : tls() ? 443 : 80;
    }

    int effectiveIoThreads() {
        int threads = ioThreads > 0 ? ioThreads
                : Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        return Math.min(threads, connections);
    }

    int effectiveMaxBacklog() {
        if (maxBacklog > 0) {
            return maxBacklog;
        }
        double perTimeout = ratePerSecond * (requestTimeout.toNanos() / 1e9);
        return (int) Math.max(64, Math.min(1_000_000, Math.ceil(perTimeout)));
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private URI target;
        private RequestSource source;
        private Mode mode = Mode.CLOSED;
        private int connections = 16;
        private double ratePerSecond;
        private Duration duration = Duration.ofSeconds(30);
        private Duration warmup = Duration.ofSeconds(5);
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Duration requestTimeout = Duration.ofSeconds(30);
        private boolean progress;
        private int ioThreads;
        private int maxBacklog;
        private boolean http2;
        private List<URI> alsoTargets = List.of();

        private Builder(URI target, RequestSource source) {
            this.target = target;
            this.source = source;
        }

        public Builder target(URI value) {
            this.target = value;
            return this;
        }

        public Builder source(RequestSource value) {
            this.source = value;
            return this;
        }

        public Builder mode(Mode value) {
            this.mode = value;
            return this;
        }

        /** Closed loop with {@code count} connections. */
        public Builder closedLoop(int count) {
            this.mode = Mode.CLOSED;
            this.connections = count;
            return this;
        }

        /** Open loop at {@code perSecond} requests per second over at most {@code maxConnections}. */
        public Builder openLoop(double perSecond, int maxConnections) {
            this.mode = Mode.OPEN;
            this.ratePerSecond = perSecond;
            this.connections = maxConnections;
            return this;
        }

        public Builder connections(int value) {
            this.connections = value;
            return this;
        }

        public Builder ratePerSecond(double value) {
            this.ratePerSecond = value;
            return this;
        }

        public Builder duration(Duration value) {
            this.duration = value;
            return this;
        }

        public Builder warmup(Duration value) {
            this.warmup = value;
            return this;
        }

        /** Adds (or replaces) one request header. */
        public Builder header(String name, String value) {
            headers.put(Objects.requireNonNull(name, "header name"), Objects.requireNonNull(value, "header value"));
            return this;
        }

        public Builder headers(Map<String, String> values) {
            values.forEach(this::header);
            return this;
        }

        public Builder requestTimeout(Duration value) {
            this.requestTimeout = value;
            return this;
        }

        public Builder progress(boolean value) {
            this.progress = value;
            return this;
        }

        public Builder ioThreads(int value) {
            this.ioThreads = value;
            return this;
        }

        public Builder maxBacklog(int value) {
            this.maxBacklog = value;
            return this;
        }

        /** HTTP/2 by prior knowledge (h2c) instead of HTTP/1.1. */
        public Builder http2(boolean value) {
            this.http2 = value;
            return this;
        }

        /** More targets the connections are spread over (see {@link BenchOptions#alsoTargets()}). */
        public Builder alsoTargets(List<URI> value) {
            this.alsoTargets = List.copyOf(value);
            return this;
        }

        public BenchOptions build() {
            return new BenchOptions(target, mode, connections, ratePerSecond, duration, warmup, source, headers,
                    requestTimeout, progress, ioThreads, maxBacklog, http2, alsoTargets);
        }
    }
}
