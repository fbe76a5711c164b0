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
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reloads of one policy file, one at a time on a thread of their own: when the file's content changes
 * (polled every {@link #POLL_MILLIS} ms: a Kubernetes ConfigMap update swaps a {@code ..data} symlink rather than
 * writing the file, so the content is compared, not file events), on {@code SIGHUP} and on
 * {@code POST /admin/reload}. Reloads asked for while one runs share one reload queued behind it (so each caller
 * gets the outcome of a reading of the file made after it asked, and at most one waits, however many ask), and a
 * caller waits at most {@link #ANSWER_WITHIN} for the outcome: past it the answer is {@code running} and the
 * outcome goes to the log, the metrics and the audit log when it comes.
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
    /** The reload asked for and not yet started, which later callers join; null when none waits. */
    private final AtomicReference<CompletableFuture<ReloadOutcome>> queued = new AtomicReference<>();
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
     * Reloads the file as soon as the reload thread is free: completes with the outcome, or with {@code running}
     * after {@link #ANSWER_WITHIN} while it (or the one before it) still runs.
     */
    CompletableFuture<ReloadOutcome> reload() {
        CompletableFuture<ReloadOutcome> mine = new CompletableFuture<>();
        CompletableFuture<ReloadOutcome> shared = queued.compareAndExchange(null, mine);
        if (shared == null) {
            shared = mine;
            try {
                thread.execute(() -> {
                    queued.compareAndSet(mine, null); // from here, a new caller needs a reading of its own
                    try {
                        mine.complete(reloadNow());
                    } catch (RuntimeException e) {
                        mine.completeExceptionally(e);
                    }
                });
            } catch (RejectedExecutionException e) { // closed
                queued.compareAndSet(mine, null);
                mine.completeExceptionally(e);
            }
        }
        // A copy per caller: the bound must not complete the future other callers share.
        return shared.thenApply(outcome -> outcome)
                .completeOnTimeout(null, answerWithin.toMillis(), TimeUnit.MILLISECONDS)
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
            }
        });
    }

    private void poll() {
        try {
            byte[] seen = hash();
            if (seen == null || Arrays.equals(seen, appliedHash) || queued.get() != null) {
                return; // unchanged, unreadable mid-swap, or a reload queued on this thread will read it
            }
            audit.reload("file", reloadNow());
        } catch (RuntimeException e) {
            log.warn("policy watch: {}", e.toString());
        }
    }

    /** Reads the file and offers it; runs on the reload thread only, so reloads never overlap. */
    private ReloadOutcome reloadNow() {
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
