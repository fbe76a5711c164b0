package io.cachegate.gateway;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.gateway.admin.AdminAudit;
import io.cachegate.gateway.admin.ReloadOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reloads of one policy file, one at a time on a thread of their own: when the file's content changes
 * (polled every {@link #POLL_MILLIS} ms: a Kubernetes ConfigMap update swaps a {@code ..data} symlink rather than
 * writing the file, so the content is compared, not file events), on {@code SIGHUP} and on
 * {@code POST /admin/reload}. A reload asked for while one runs is answered {@code busy} at once instead of
 * queueing behind it, and a caller waits at most {@link #ANSWER_WITHIN} for the outcome: past it the answer is
 * {@code running} and the outcome goes to the log, the metrics and the audit log when it comes.
 */
final class PolicyWatch implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PolicyWatch.class);
    static final long POLL_MILLIS = 250;
    /** A reload of a file within the size limit takes well under a second; this bounds an admin call's wait. */
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);

    /** Where a file that loaded, or the problems of one that did not, go. */
    interface Target {

        /** Swaps in {@code next}, or says why not; {@code sameBytes}: the file holds the bytes last applied. */
        ReloadOutcome offer(Policy next, boolean sameBytes);

        /** The file did not load: the running policy stays. */
        ReloadOutcome rejected(PolicyException problems);

        /** The policy generation serving new requests. */
        long generation();
    }

    private final Path file;
    private final PolicyLoader loader;
    private final Target target;
    private final AdminAudit audit;
    private final Duration answerWithin;
    private final ScheduledExecutorService thread;
    /** Held from a reload's acceptance to its end: a second one meanwhile is answered busy. */
    private final AtomicBoolean running = new AtomicBoolean();
    /** Read and written on the reload thread only. */
    private byte[] appliedHash;

    PolicyWatch(Path file, PolicyLoader loader, Target target, AdminAudit audit) {
        this(file, loader, target, audit, ANSWER_WITHIN);
    }

    PolicyWatch(Path file, PolicyLoader loader, Target target, AdminAudit audit, Duration answerWithin) {
        this.file = file;
        this.loader = loader;
        this.target = target;
        this.audit = audit;
        this.answerWithin = answerWithin;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cachegate-reload");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.thread = executor;
        this.appliedHash = hash();
    }

    /** Starts polling the file. */
    void start() {
        thread.scheduleWithFixedDelay(this::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Reloads the file now: completes with the outcome, with {@code busy} at once when a reload is already running,
     * or with {@code running} after {@link #ANSWER_WITHIN} while this one still runs.
     */
    CompletableFuture<ReloadOutcome> reload() {
        if (!running.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(new ReloadOutcome("busy", target.generation(),
                    List.of("a reload is already running; its outcome is logged and counted in"
                            + " cachegate_policy_reloads_total: ask again once it has ended"), List.of()));
        }
        CompletableFuture<ReloadOutcome> outcome;
        try {
            outcome = CompletableFuture.supplyAsync(this::reloadHeld, thread);
        } catch (RejectedExecutionException e) { // closed
            running.set(false);
            return CompletableFuture.failedFuture(e);
        }
        return outcome.completeOnTimeout(null, answerWithin.toMillis(), TimeUnit.MILLISECONDS)
                .thenApply(done -> done != null ? done : new ReloadOutcome("running", target.generation(),
                        List.of("the reload has run for " + answerWithin.toSeconds() + " s and goes on; its outcome"
                                + " will be logged and counted in cachegate_policy_reloads_total"), List.of()));
    }

    /** Reloads on {@code SIGHUP}, like {@code POST /admin/reload}; the outcome is logged and audited. */
    void reloadOnSignal() {
        reload().whenComplete((outcome, error) -> {
            audit.reload("signal", outcome);
            if (error != null) {
                log.warn("SIGHUP reload failed: {}", error.toString());
            } else if (outcome.outcome().equals("busy")) {
                log.warn("SIGHUP ignored: a reload is already running");
            }
        });
    }

    private void poll() {
        try {
            byte[] seen = hash();
            if (seen == null || Arrays.equals(seen, appliedHash) || !running.compareAndSet(false, true)) {
                return; // unchanged, unreadable mid-swap, or a reload already under way will read it
            }
            audit.reload("file", reloadHeld());
        } catch (RuntimeException e) {
            log.warn("policy watch: {}", e.toString());
        }
    }

    /** Runs on the reload thread, holding {@link #running}, which it lets go. */
    private ReloadOutcome reloadHeld() {
        try {
            byte[] seen = hash();
            Policy next;
            try {
                next = loader.load(file);
            } catch (PolicyException e) {
                appliedHash = seen; // the same broken file is not reported again until it changes
                return target.rejected(e);
            }
            boolean same = seen != null && Arrays.equals(seen, appliedHash);
            appliedHash = seen;
            return target.offer(next, same);
        } finally {
            running.set(false);
        }
    }

    /** The digest of the file's first bytes, as many as the loader reads and one more; null when unreadable. */
    private byte[] hash() {
        try (InputStream in = Files.newInputStream(file)) {
            return MessageDigest.getInstance("SHA-256").digest(in.readNBytes((int) loader.maxFileBytes() + 1));
        } catch (IOException e) {
            return null; // mid-swap or gone: the next poll looks again
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
