package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.exact.EntrySigner;
import io.cachegate.cache.exact.RedisJournal;
import io.cachegate.cache.semantic.EvidenceFile;
import io.cachegate.cache.semantic.FiledEvidence;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.gateway.metrics.SemanticMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares the error budget's evidence among the gateways of a fleet through a Redis stream ({@link RedisJournal}): each
 * verdict, demotion and generated entry's answer group filed here is appended ({@link FiledEvidence}), each one another
 * gateway appended is filed here ({@link HitEvidence#apply}). Gateways over one Qdrant collection serve the same
 * entries: without it, an entry a wrong audit demoted at one gateway went on being served by the others, each gateway
 * opened its classes on its own verdicts alone (N gateways taking N times as long), and the neighbourhood agreement
 * counted every entry another gateway generated as an answer of its own.
 *
 * <p>One stream per index and per model and priors ({@link EvidenceFile#fingerprint}): the counts' bins mean something
 * only to those priors, and a demotion only to the gateways serving that entry (a Qdrant collection's, or embedded
 * indexes over one exact store, whose entries they point at). A gateway that starts without saved evidence reads the
 * stream from its start (as much as is kept: the evidence of the fleet, its own earlier runs included); one that read
 * its evidence file resumes where the file says it had read, under the origin it had, taking no sequence number it had
 * taken ({@link HitEvidence.FleetPosition}), so nothing counts twice, not even a copy planted since.
 *
 * <p>Whether the union of several gateways' verdicts may be pooled: the bound needs each class's verdicts to be draws
 * of its wrong rate, as one gateway's are; gateways behind one load balancer see the same traffic, so theirs are too.
 * Evidence filed at another gateway is trusted as that gateway's cache entries are: with the exact store's {@code
 * signing_key}, signed and checked with it (a planted or replayed record is refused), else as Redis is.
 */
final class SharedEvidence implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedEvidence.class);
    /** Evidence waiting to be sent at most; beyond it, pieces are dropped (and counted) rather than held. */
    static final int MAX_PENDING = 10_000;
    /**
     * How long a starting gateway's readiness waits for the stream to be read (its demotions known before traffic
     * comes): longer only while Redis is away, and then the exact store is away too and readiness does not wait on it.
     */
    static final Duration CATCH_UP_WAIT = Duration.ofSeconds(5);

    private final RedisJournal journal;
    private final String stream;
    private final AtomicLong unreadable = new AtomicLong();
    private final long startedNanos = System.nanoTime();

    private SharedEvidence(HitEvidence evidence, String redisUri, String stream, long maxEvents,
                           Duration commandTimeout, EntrySigner signer) {
        HitEvidence.FleetPosition saved = evidence.fleetPosition();
        this.stream = stream;
        RedisJournal.Position from = saved == null ? RedisJournal.Position.start()
                : new RedisJournal.Position(saved.origin(), saved.lastId(), saved.taken());
        this.journal = RedisJournal.create(redisUri, stream, from, maxEvents, MAX_PENDING, commandTimeout, signer,
                (id, line) -> file(evidence, line));
        // Saved with the evidence from now on, before the first piece is read: the journal advances its position
        // before each piece it files here, so a save never holds a piece without having passed it.
        evidence.followFleet(() -> {
            RedisJournal.Position at = journal.position();
            return new HitEvidence.FleetPosition(at.origin(), at.after(), at.taken());
        });
        evidence.onFiled(filed -> journal.append(filed.encode()));
        journal.start();
        log.info("error budget: evidence shared with the fleet through Redis stream {}, {}", stream,
                saved == null ? "read from its start" : "resumed after " + from.after());
    }

    /**
     * Starts sharing {@code evidence} (after its file, if any, was read) over the Redis at {@code redisUri}.
     *
     * @param index the index the evidence is about: {@code embedded}, or the Qdrant collection's name
     * @param signer the exact store's signer: with a signing key, evidence is signed and unsigned evidence refused
     * @param maxEvents the stream is trimmed to about this many pieces of evidence
     */
    static SharedEvidence start(HitEvidence evidence, SemanticMetrics metrics, String redisUri, String index,
                                String modelId, long maxEvents, Duration commandTimeout, EntrySigner signer) {
        SharedEvidence shared = new SharedEvidence(evidence, redisUri,
                streamOf(index, EvidenceFile.fingerprint(modelId)), maxEvents, commandTimeout, signer);
        RedisJournal journal = shared.journal;
        metrics.watchSharedEvidence(Map.of(
                "sent", () -> journal.counts().sent(),
                "received", () -> journal.counts().received(),
                "dropped", () -> journal.counts().dropped(),
                "failed", () -> journal.counts().failed(),
                "duplicate", () -> journal.counts().duplicates(),
                "refused", () -> journal.counts().refused(),
                "unreadable", shared.unreadable::get));
        return shared;
    }

    /** The stream of one index ({@code embedded}, or a Qdrant collection's name) under one model and its priors. */
    static String streamOf(String index, String fingerprint) {
        return "cg:evidence:v1:" + index + ":" + fingerprint.substring(0, 16);
    }

    private void file(HitEvidence evidence, String line) {
        Optional<FiledEvidence> filed = FiledEvidence.decode(line);
        if (filed.isPresent()) {
            evidence.apply(filed.get());
        } else {
            unreadable.incrementAndGet();
        }
    }

    /**
     * Whether the fleet's evidence as the stream held it at start has been filed here (or {@link #CATCH_UP_WAIT} has
     * passed): part of the semantic layer's readiness.
     */
    boolean caughtUp() {
        return journal.caughtUp().isDone() || System.nanoTime() - startedNanos > CATCH_UP_WAIT.toNanos();
    }

    /** What {@code /admin/stats} shows of the sharing ({@link SemanticCache.Sharing}). */
    SemanticCache.Sharing status() {
        RedisJournal.Counts c = journal.counts();
        return new SemanticCache.Sharing(stream, journal.connected(), journal.origin(), journal.lastId(), c.sent(),
                c.received(), c.dropped(), c.failed(), c.duplicates(), c.refused(), unreadable.get());
    }

    @Override
    public void close() {
        journal.close();
    }
}
