package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.EntrySigner;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.cache.semantic.BudgetedDecision;
import io.cachegate.cache.semantic.ClassWatch;
import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.cache.semantic.IndexEntry;
import io.cachegate.cache.semantic.IndexPurge;
import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.cache.semantic.MatchDecisions;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.NeighbourhoodAgreement;
import io.cachegate.cache.semantic.ReadableLabels;
import io.cachegate.cache.semantic.Sweeper;
import io.cachegate.cache.semantic.VectorIndex;
import io.cachegate.config.RouteCache;
import io.cachegate.config.SemanticCacheSettings;
import io.cachegate.config.SemanticStore;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.cache.AnswerText;
import io.cachegate.gateway.cache.SemanticQuery;
import io.cachegate.gateway.metrics.SemanticMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The semantic cache on the request path: embeds a request's text, searches the nearest entries of its scope,
 * and lets the match decision pick the entry whose answer serves it; after a miss whose answer was stored in
 * the exact cache, files the request's vector under that entry's key. Every failure (embedder full, index
 * down) makes the lookup a miss and is counted: this layer can cost a miss, never an error.
 */
public final class SemanticCache implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SemanticCache.class);

    private final SemanticCacheSettings settings;
    private final Embedder embedder;
    private final VectorIndex index;
    private final SemanticMetrics metrics;
    private final Ticker ticker;
    private final ConcurrentMap<Double, MatchDecision> decisions = new ConcurrentHashMap<>();
    /**
     * The anytime bound's classes: a candidate's bin of the prior pooled with the bins above it (measured against
     * one bin each with {@code eval-semantic --replay --classes nested,bin}, docs/caches.md).
     */
    private static final boolean NESTED_CLASSES = true;
    private final ConcurrentMap<Double, BudgetedDecision> budgets = new ConcurrentHashMap<>();
    /** Audit and exploration verdicts, and demotions: what the error budget learns from. */
    private final HitEvidence evidence = new HitEvidence(EVIDENCE_ENTRIES);
    private final Sweeper sweeper;
    private volatile EvidenceKeeper evidenceKeeper;
    private volatile SharedEvidence sharedEvidence;
    private final AtomicLong indexSize = new AtomicLong();
    private final AtomicInteger pendingWrites = new AtomicInteger();
    /** Done once the index has answered {@link #WARM_UP_SEARCHES} searches, or failed them (Qdrant down). */
    private final CompletableFuture<Void> indexWarm;

    /** Entries whose verdicts and answer groups are kept (about 35 MB); the least recently used are forgotten first. */
    static final int EVIDENCE_ENTRIES = 100_000;

    /** How often the kept evidence is written ({@link #keepEvidenceIn}): a crash loses at most this much of it. */
    static final Duration EVIDENCE_SAVE_INTERVAL = Duration.ofMinutes(1);

    /** Searches run at start in a scope no request has: the first client search then finds the code hot. */
    static final int WARM_UP_SEARCHES = 32;

    /** Takes ownership of the embedder and the index: {@link #close()} closes both. */
    public SemanticCache(SemanticCacheSettings settings, Embedder embedder, VectorIndex index,
                         SemanticMetrics metrics, Ticker ticker) {
        if (embedder.dimension() != index.dimension() || !embedder.modelId().equals(index.modelId())) {
            throw new IllegalArgumentException("the index was built for " + index.modelId() + " (" + index.dimension()
                    + "), the embedder is " + embedder.modelId() + " (" + embedder.dimension() + ")");
        }
        this.settings = settings;
        this.embedder = embedder;
        this.index = index;
        this.metrics = metrics;
        this.ticker = ticker;
        this.sweeper = Sweeper.start(index, ticker, settings.sweepInterval());
        this.indexWarm = IndexWarmUp.searches(index, WARM_UP_SEARCHES, searchSize(), ticker);
    }

    /**
     * The index size as last counted; each call starts a new count in the background, so a metrics scrape
     * sees the size as of its previous scrape, never waits, and never blocks a thread.
     */
    public long indexSizeLastKnown() {
        index.size().thenAccept(indexSize::set);
        return indexSize.get();
    }

    /**
     * Looks {@code query} up. Never fails: a part failing gives a miss with {@code failed} set. Completes on an
     * embedder or index thread; continue on the client's event loop.
     *
     * @param pool where the error budget pools verdicts while an entry has few of its own (the route)
     * @param requestThreshold {@code X-Cache-Threshold}, 0 for none; only a stricter value counts
     * @param readable the entries the requester's key may read, by their labels: filtered inside the search
     * @param early the query's embedding already under way ({@link #embedEarly}), or null to start it now
     */
    public CompletableFuture<Result> lookup(SemanticQuery query, RouteCache route, String pool,
                                            double requestThreshold, ReadableLabels readable,
                                            CompletableFuture<float[]> early) {
        CompletableFuture<Result> result = new CompletableFuture<>();
        long start = ticker.nanos(); // with an early embedding, "embed" is what is left of it after the exact lookup
        (early != null ? early : embed(query.text())).whenComplete((vector, embedError) -> {
            long embedNanos = ticker.nanos() - start;
            if (embedError != null) {
                result.complete(Result.failed("embed", null, embedNanos, 0));
                return;
            }
            long searchStart = ticker.nanos();
            index.search(query.scope(), vector, searchSize(), ticker.wallMillis(), readable)
                    .whenComplete((neighbours, searchError) -> {
                        long searchNanos = ticker.nanos() - searchStart;
                        if (searchError != null) {
                            log.debug("semantic search failed: {}", searchError.toString());
                            result.complete(Result.failed("search", vector, embedNanos, searchNanos));
                            return;
                        }
                        result.complete(decide(query.text(), vector, candidates(neighbours), route, pool,
                                requestThreshold, embedNanos, searchNanos));
                    });
        });
        return result;
    }

    /** The static decision, or the error budget's judgement with the candidates it did not serve to explore. */
    private Result decide(String text, float[] vector, List<Neighbour> neighbours, RouteCache route, String pool,
                          double requestThreshold, long embedNanos, long searchNanos) {
        double threshold = route.threshold().orElse(settings.threshold());
        if (budgeted()) {
            BudgetedDecision.Judgement judged = budgets.computeIfAbsent(threshold, t -> new BudgetedDecision(
                    LearnedDecision.bundled(t), new NeighbourhoodAgreement(evidence.answers()), evidence,
                    settings.maxErrorRate(), settings.budgetDelta(), NESTED_CLASSES)).judge(pool, text, neighbours, requestThreshold);
            Optional<MatchDecision.Match> match = judged.served().map(BudgetedDecision.Candidate::match);
            return new Result(match, nearest(match, neighbours),
                    judged.served().map(BudgetedDecision.Candidate::prior).orElse(Double.NaN), judged.explore(),
                    vector, embedNanos, searchNanos, null);
        }
        Optional<MatchDecision.Match> match = decision(threshold).decide(text, vector, neighbours, requestThreshold);
        double prior = match.map(m -> priorOf(threshold, text, m)).orElse(Double.NaN);
        return new Result(match, nearest(match, neighbours), prior, List.of(), vector, embedNanos, searchNanos, null);
    }

    /** The learned classifier's probability for a static decision's hit: what an audit verdict is filed with. */
    private double priorOf(double threshold, String text, MatchDecision.Match match) {
        MatchDecision d = decision(threshold);
        LearnedDecision learned = d instanceof LearnedDecision l ? l : LearnedDecision.bundled(threshold);
        return learned.probability(text, match.neighbour().text(), match.similarity());
    }

    /** The error budget in force: 0 when the decision is static (by {@code max_error_rate: 0} or by its name). */
    public double maxErrorRate() {
        return budgeted() ? settings.maxErrorRate() : 0;
    }

    /**
     * What the error budget's class watch did, by route ({@link ClassWatch.Figures}, tenants summed): empty without a
     * bound or before the first judgement. Every threshold's decision serves under the same spending and watch, so one
     * decision's settings name the state they all read.
     */
    public Map<String, ClassWatch.Figures> watchByRoute() {
        return budgets.values().stream().findFirst().filter(d -> d.spending() != null)
                .map(d -> evidence.watchFiguresByRoute(d.spending(), d.watch())).orElse(Map.of());
    }

    /** The error budget's confidence: 0 when it serves on the point estimate, or when there is no budget. */
    public double budgetDelta() {
        return budgeted() ? settings.budgetDelta() : 0;
    }

    /** The error budget refines the learned decision; {@code cosine} and {@code guarded} stay static. */
    private boolean budgeted() {
        return settings.maxErrorRate() > 0 && MatchDecisions.LEARNED.equals(settings.decision());
    }

    /** Neighbours searched: an error budget weighs the agreement of at least {@link NeighbourhoodAgreement#NEIGHBOURS}. */
    private int searchSize() {
        return budgeted() ? Math.max(settings.neighbours(), NeighbourhoodAgreement.NEIGHBOURS) : settings.neighbours();
    }

    /** The neighbours that may answer by meaning: a demoted entry answers exact repeats only. */
    private List<Neighbour> candidates(List<Neighbour> neighbours) {
        return neighbours.stream().filter(n -> !evidence.demoted(n.entryKey())).toList();
    }

    /**
     * Files {@code query} under the exact entry {@code key} once that entry is stored. Embeds the text when the
     * lookup did not ({@code vector} null). Asynchronous; failures are counted and logged, never thrown.
     *
     * @param labels the access labels the request declared, as on the exact entry
     * @param userDigest the digest of the request's end user, "" for none
     * @return completes when the entry is filed, or exceptionally when that failed (counted and logged already)
     */
    public CompletableFuture<Void> writeBack(SemanticQuery query, float[] vector, CacheKey key, Set<String> tags, Duration exactTtl,
                          Set<String> labels, String userDigest) {
        return writeBack(query, vector, null, key, tags, exactTtl, labels, userDigest);
    }

    /**
     * As above, when the lookup's embedding may still be running ({@code early}, used when {@code vector} is null;
     * embedded again only if it failed): a speculative call's answer can be stored before the lookup is done.
     */
    public CompletableFuture<Void> writeBack(SemanticQuery query, float[] vector, CompletableFuture<float[]> early,
                                             CacheKey key, Set<String> tags, Duration exactTtl, Set<String> labels,
                                             String userDigest) {
        pendingWrites.incrementAndGet();
        CompletableFuture<float[]> embedded = vector != null ? CompletableFuture.completedFuture(vector)
                : early == null ? embed(query.text())
                : early.handle((v, error) -> v).thenCompose(v -> v != null ? CompletableFuture.completedFuture(v)
                        : embed(query.text()));
        return embedded.thenCompose(v -> {
            long now = ticker.wallMillis();
            // The index entry never outlives the answer it points at.
            long ttl = Math.min(settings.ttl().toMillis(), exactTtl.toMillis());
            return index.add(new IndexEntry(key.redisKey(), query.scope(), key.tenant(), key.modelVersion(), tags, v,
                    query.text(), now, now + ttl, labels, userDigest));
        }).whenComplete((ok, error) -> {
            pendingWrites.decrementAndGet();
            if (error == null) {
                metrics.writeBack("written");
            } else {
                metrics.writeBack("failed");
                metrics.failOpen("write");
                log.debug("semantic write-back failed: {}", error.toString());
            }
        });
    }

    /**
     * Notes which answer the exact entry {@code entryKey} holds, for the error budget's neighbourhood agreement
     * (without a budget nothing reads it, so nothing is kept). On the store's thread: parses the body once.
     */
    public void fileAnswer(String entryKey, CacheEntry entry) {
        if (budgeted()) {
            evidence.fileAnswer(entryKey, AnswerText.of(null, entry.body()));
        }
    }

    /**
     * True once the embedder has run its warm-up (an embedder without one is always warm) and the index its own, and
     * the evidence shared by the fleet has been read ({@link SharedEvidence#caughtUp}).
     */
    public boolean warm() {
        SharedEvidence shared = sharedEvidence;
        return indexWarm.isDone() && (!(embedder instanceof MicroBatchingEmbedder m) || m.warmedUp().isDone())
                && (shared == null || shared.caughtUp());
    }

    /** Write-backs started and not yet finished (each is bounded by the embedder's and the index's queues). */
    public int pendingWrites() {
        return pendingWrites.get();
    }

    /** Removes the index entry of an exact entry found missing. */
    public void forget(String entryKey) {
        metrics.dangling();
        index.delete(entryKey).exceptionally(error -> null);
    }

    /** Removes the index entries in {@code scope}; completes with how many. */
    public CompletableFuture<Long> purge(PurgeScope scope) {
        return index.purge(new IndexPurge(scope.all(), scope.tenant(), scope.modelVersion(), scope.tag(), scope.user()));
    }

    public SemanticMetrics metrics() {
        return metrics;
    }

    public VectorIndex index() {
        return index;
    }

    public Embedder embedder() {
        return embedder;
    }

    /**
     * Keeps the error budget's evidence in {@code file} across restarts: reads it now (blocks: call at start-up,
     * before the first lookup), writes it every {@link #EVIDENCE_SAVE_INTERVAL} and at {@link #close()}.
     */
    public void keepEvidenceIn(Path file) {
        if (evidenceKeeper != null) {
            throw new IllegalStateException("the evidence is kept in one file");
        }
        evidenceKeeper = EvidenceKeeper.start(evidence, metrics, file, embedder.modelId(), EVIDENCE_SAVE_INTERVAL);
    }

    /**
     * Shares the error budget's evidence with the other gateways over the Redis at {@code redisUri}
     * ({@link SharedEvidence}): after {@link #keepEvidenceIn}, whose file says where to resume. Returns at once.
     *
     * @param maxEvents the shared stream keeps about this many pieces of evidence
     * @param signer the exact store's: with its key, the evidence is signed and unsigned evidence refused
     */
    public void shareEvidence(String redisUri, long maxEvents, Duration commandTimeout, EntrySigner signer) {
        if (sharedEvidence != null) {
            throw new IllegalStateException("the evidence is shared once");
        }
        String shared = settings.store() == SemanticStore.QDRANT ? "qdrant:" + settings.qdrant().collection()
                : "embedded";
        sharedEvidence = SharedEvidence.start(evidence, metrics, redisUri, shared, embedder.modelId(), maxEvents,
                commandTimeout, signer);
    }

    /**
     * The evidence shared with the fleet, as {@code /admin/stats} shows it: the Redis stream, whether its connection
     * is up, this gateway's origin in it, where it has read to, and what it sent and took.
     */
    public record Sharing(String stream, boolean connected, String origin, String position, long sent, long received,
                          long dropped, long failed, long duplicates, long refused, long unreadable) {
    }

    /** How the evidence is shared with the fleet; empty when it is not ({@link #shareEvidence}). */
    public Optional<Sharing> sharing() {
        SharedEvidence shared = sharedEvidence;
        return shared == null ? Optional.empty() : Optional.of(shared.status());
    }

    /** Audit and exploration verdicts; also the demotions every lookup respects. */
    public HitEvidence evidence() {
        return evidence;
    }

    public SemanticCacheSettings settings() {
        return settings;
    }

    /** Starts embedding {@code text} before the lookup needs it (in parallel with the exact lookup). */
    public CompletableFuture<float[]> embedEarly(String text) {
        return embed(text);
    }

    /** Cancelling the returned future takes the text off the embedder's queue if no batch has taken it yet. */
    private CompletableFuture<float[]> embed(String text) {
        CompletableFuture<float[][]> queued;
        try {
            queued = embedder.embed(List.of(text));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<float[]> vector = queued.thenApply(vectors -> vectors[0]);
        vector.whenComplete((v, error) -> {
            if (vector.isCancelled()) {
                queued.cancel(false);
            }
        });
        return vector;
    }

    private MatchDecision decision(double threshold) {
        return decisions.computeIfAbsent(threshold, t -> MatchDecisions.create(settings.decision(), t));
    }

    /** The match's similarity, or for a miss the nearest neighbour's; NaN when the search found none. */
    private static double nearest(Optional<MatchDecision.Match> match, List<Neighbour> neighbours) {
        if (match.isPresent()) {
            return match.get().similarity();
        }
        double best = Double.NaN;
        for (Neighbour n : neighbours) {
            best = Double.isNaN(best) ? n.similarity() : Math.max(best, n.similarity());
        }
        return best;
    }

    @Override
    public void close() {
        sweeper.close();
        if (sharedEvidence != null) {
            sharedEvidence.close(); // before the last save: what it filed is in the file with its position
        }
        if (evidenceKeeper != null) {
            evidenceKeeper.close();
        }
        index.close();
        embedder.close();
    }

    /**
     * A lookup's outcome.
     *
     * @param nearest the match's similarity, or for a miss the nearest neighbour's; NaN when none was found
     * @param prior the learned classifier's probability for the match, NaN without one
     * @param explore the candidates the error budget did not serve: compare their answers with the fresh one
     * @param vector the query's vector, for the write-back; null when embedding failed
     * @param failedPart the part that failed or was full ({@code embed}, {@code search}): the miss is a fail-open;
     *                   null when none did
     */
    public record Result(Optional<MatchDecision.Match> match, double nearest, double prior,
                         List<BudgetedDecision.Candidate> explore, float[] vector, long embedNanos, long searchNanos,
                         String failedPart) {

        /** A lookup that failed before it had a vector. */
        static final Result FAILED = failed("embed", null, 0, 0);

        static Result failed(String part, float[] vector, long embedNanos, long searchNanos) {
            return new Result(Optional.empty(), Double.NaN, Double.NaN, List.of(), vector, embedNanos, searchNanos,
                    part);
        }
    }
}
