package io.cachegate.gateway.telemetry;

import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.log.AuditLog;
import io.cachegate.gateway.telemetry.log.LogWriters;
import java.util.ArrayList;
import java.util.List;

/**
 * What the gateway tells about its requests besides answering them: the parts that live as long as the gateway
 * (writers, exporters, estimators), and for each policy generation the {@link ExchangeObserver} that feeds them.
 */
public final class Telemetry implements AutoCloseable {

    private final GatewayMetrics metrics;
    private final Ticker ticker;
    /** Kept across reloads: a new generation's hits are priced with what the backends did just before. */
    private final UpstreamLatency latency = new UpstreamLatency();
    private final LogWriters logs;

    /** Opens the log files; one that cannot be opened throws {@link java.io.UncheckedIOException} naming its key. */
    public Telemetry(Policy policy, GatewayMetrics metrics, Ticker ticker) {
        this.metrics = metrics;
        this.ticker = ticker;
        this.logs = new LogWriters(policy.log(), metrics.registry(), ticker);
    }

    /** Where the admin listener audits purges and reloads. */
    public AuditLog audit() {
        return logs.audit();
    }

    /** The observer of the exchanges that run under {@code policy}. */
    public ExchangeObserver observer(Policy policy) {
        List<ExchangeObserver> observers = new ArrayList<>();
        observers.add(new Savings(policy.prices(), latency, metrics)); // first: the others report what it found
        observers.addAll(logs.observers(policy)); // last: the log line sees what the others put in the record
        return ExchangeObserver.of(observers);
    }

    @Override
    public void close() {
        logs.close();
    }
}
