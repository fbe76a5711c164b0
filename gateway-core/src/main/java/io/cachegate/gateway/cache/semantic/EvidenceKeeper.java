package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.semantic.EvidenceFile;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.gateway.metrics.SemanticMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the error budget's evidence in a file across restarts: read once at start, written every
 * {@code interval} and at close, on a thread of its own (never a request's). A file that cannot be read, or was
 * written for another model or other priors, is left aside: the gateway starts without evidence, as it did before
 * such files existed, and overwrites it at its next save. Each read and write is counted
 * ({@code cachegate_semantic_evidence_file_total{outcome}}).
 */
final class EvidenceKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EvidenceKeeper.class);

    private final HitEvidence evidence;
    private final SemanticMetrics metrics;
    private final Path file;
    private final String fingerprint;
    private final ScheduledExecutorService writer;

    private EvidenceKeeper(HitEvidence evidence, SemanticMetrics metrics, Path file, String fingerprint) {
        this.evidence = evidence;
        this.metrics = metrics;
        this.file = file;
        this.fingerprint = fingerprint;
        this.writer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cachegate-evidence");
            t.setDaemon(true);
            return t;
        });
    }

    /** Loads {@code file} into {@code evidence} (which has no verdicts yet; blocks: call at start-up), then keeps it. */
    static EvidenceKeeper start(HitEvidence evidence, SemanticMetrics metrics, Path file, String modelId,
                                Duration interval) {
        EvidenceKeeper keeper = new EvidenceKeeper(evidence, metrics, file, EvidenceFile.fingerprint(modelId));
        try {
            boolean read = EvidenceFile.read(file, keeper.fingerprint, evidence);
            metrics.evidenceFile(read ? "read" : "none");
            if (read) {
                log.info("error budget: verdicts of {} entries and {} answer groups read from {}", evidence.entries(),
                        evidence.answers().size(), file);
            } else {
                log.info("error budget: no evidence for this model and these priors in {}; starting without", file);
            }
        } catch (IOException | RuntimeException e) {
            metrics.evidenceFile("unreadable");
            log.warn("error budget: the evidence in {} was not read ({}); starting without it", file, e.toString());
        }
        long millis = interval.toMillis();
        keeper.writer.scheduleWithFixedDelay(keeper::save, millis, millis, TimeUnit.MILLISECONDS);
        return keeper;
    }

    private void save() {
        try {
            EvidenceFile.write(file, fingerprint, evidence);
            metrics.evidenceFile("written");
        } catch (IOException | RuntimeException e) {
            metrics.evidenceFile("write_failed");
            log.warn("error budget: the evidence could not be written to {} ({})", file, e.toString());
        }
    }

    /** Writes the evidence a last time (after any save under way). */
    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        save();
    }
}
