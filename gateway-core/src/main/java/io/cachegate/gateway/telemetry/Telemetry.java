package io.cachegate.gateway.telemetry;

import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.log.AuditLog;
import io.cachegate.gateway.telemetry.log.LogWriters;
import io.cachegate.gateway.telemetry.trace.Tracing;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the gateway tells about its requests besides answering them: the parts that live as long as the gateway
 * (writers, exporters, estimators), and for each policy generation the {@link ExchangeObserver} that feeds them.
 */
public final class Telemetry implements AutoCloseable {

    private final GatewayMetrics metrics;
    /** Kept across reloads: a new generation's hits are priced with what the backends did just before. */
    private final UpstreamLatency latency = new UpstreamLatency();
    private final LogWriters logs;
    /** Empty when no OTLP endpoint is set: no observer, every stage sees {@code RequestTrace.OFF}. */
    private final Optional<Tracing> tracing;

    /**
     * Opens the log files and starts the trace exporter; a log file that cannot be opened throws {@link
     * java.io.UncheckedIOException} naming its key, an exporter the SDK refuses {@link IllegalArgumentException}.
     */
    public Telemetry(Policy policy, GatewayMetrics metrics, Ticker ticker) {
        this(policy, metrics, ticker, Optional.empty());
    }

    private Telemetry(Policy policy, GatewayMetrics metrics, Ticker ticker, Optional<SpanExporter> testSpans) {
        this.metrics = metrics;
        this.tracing = testSpans.isPresent()
                ? Optional.of(Tracing.exportingTo(testSpans.get(), policy.telemetry()))
                : Tracing.start(policy.telemetry(), metrics.registry());
        try {
            this.logs = new LogWriters(policy.log(), metrics.registry(), ticker);
        } catch (RuntimeException e) {
            tracing.ifPresent(Tracing::close);
            throw e;
        }
    }

    /** For tests: traces go to {@code spans} (sampled as the policy says), whatever the policy's endpoint. */
    public static Telemetry forTesting(Policy policy, GatewayMetrics metrics, Ticker ticker, SpanExporter spans) {
        return new Telemetry(policy, metrics, ticker, Optional.of(spans));
    }

    /** Whether requests are traced (an OTLP endpoint is set). */
    boolean tracing() {
        return tracing.isPresent();
    }

    /** Where the admin listener audits purges and reloads. */
    public AuditLog audit() {
        return logs.audit();
    }

    /** The observer of the exchanges that run under {@code policy}. */
    public ExchangeObserver observer(Policy policy) {
        List<ExchangeObserver> observers = new ArrayList<>();
        observers.add(new Savings(policy.prices(), latency)); // first: the others report what it found
        observers.add(metrics.requests());
        observers.add(metrics.series()); // the status page's charts
        tracing.ifPresent(t -> observers.add(t.observer()));
        observers.addAll(logs.observers(policy)); // last: the log line sees what the others put in the record
        return ExchangeObserver.of(observers);
    }

    @Override
    public void close() {
        tracing.ifPresent(Tracing::close); // flushes the spans of the last exchanges
        logs.close();
    }
}
