package io.cachegate.gateway.telemetry.log;

import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.config.LogSettings;
import io.cachegate.config.LogSink;
import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The log writers a gateway keeps for its life (the {@code log} section is restart-only): the access and audit
 * log's (stdout, a rotating file, or none) and the sampled requests' (a rotating file, or none); and for each
 * policy generation the observers that feed them ({@code include_text} and the redaction patterns reload live).
 */
public final class LogWriters implements AutoCloseable {

    private final LineWriter access;
    private final LineWriter sample;
    private final AuditLog audit;
    private final Ticker ticker;
    private final double sampleRate;

    /** Opens the files; a file that cannot be opened throws {@link UncheckedIOException} naming the key. */
    public LogWriters(LogSettings log, MeterRegistry registry, Ticker ticker) {
        this.access = switch (log.access()) {
            case OFF -> null;
            case STDOUT -> new LineWriter("access", new StdoutSink(System.out), log.queueLines(), registry);
            case FILE -> new LineWriter("access", file("log.file", log.file().orElseThrow(), log), log.queueLines(),
                    registry);
        };
        this.sample = log.sampleRate() > 0 && log.sampleFile().isPresent()
                ? new LineWriter("sample", file("log.sample_requests.file", log.sampleFile().get(), log),
                        log.queueLines(), registry)
                : null;
        this.audit = access == null ? AuditLog.OFF : new AuditLog(access, ticker);
        this.ticker = ticker;
        this.sampleRate = log.sampleRate(); // restart-only like the file it goes to
    }

    private static LineSink file(String key, String file, LogSettings log) {
        try {
            return new RotatingFileSink(Path.of(file), log.maxFileSize(), log.maxFiles());
        } catch (IOException e) {
            throw new UncheckedIOException(key + ": cannot open " + file + " (" + e.getMessage() + ")", e);
        }
    }

    /** The observers of one generation: the sampler, then the access log (last: it sees what the others set). */
    public List<ExchangeObserver> observers(Policy policy) {
        SensitiveDataDetector detector = SensitiveDataDetector.with(policy.cache().sensitivePatterns());
        List<ExchangeObserver> observers = new ArrayList<>(2);
        if (sample != null) {
            observers.add(new RequestSampler(sample, sampleRate, detector));
        }
        if (access != null) {
            observers.add(new AccessLog(access, policy.log().includeText(), detector, ticker));
        }
        return observers;
    }

    /** Where admin actions are audited: the access log's writer; nowhere when the access log is off. */
    public AuditLog audit() {
        return audit;
    }

    /** Writes what is queued (a few seconds at most) and closes the files. */
    @Override
    public void close() {
        if (access != null) {
            access.close(Duration.ofSeconds(5));
        }
        if (sample != null) {
            sample.close(Duration.ofSeconds(5));
        }
    }
}
