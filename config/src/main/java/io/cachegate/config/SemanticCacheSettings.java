package io.cachegate.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The semantic cache: a nearest-neighbour index of embedded prompts pointing at exact cache entries.
 *
 * @param threshold the minimum similarity for a hit, in (0, 1]
 * @param decision how the nearest neighbours become a hit or a miss: {@code learned}, {@code guarded} or
 *                 {@code cosine} (see docs/caches.md, "How well it decides", for how each measured)
 * @param maxErrorRate the error budget of the {@code learned} decision: a semantic hit is served only when its
 *                     estimated chance of being right is at least {@code 1 - maxErrorRate}, from its neighbours'
 *                     answers, audits and explorations; 0 for none (the static {@code decision} alone decides)
 * @param budgetDelta with an error budget, the chance that its always-valid bound fails: a hit is served only
 *                    while the upper bound on its route's and tenant's error rate (in the hit's bin of the prior)
 *                    is within {@code maxErrorRate}; 0 serves on the point estimate instead
 * @param neighbours how many nearest entries of the scope the decision sees
 * @param path directory of the embedded index
 * @param maxEntries entries kept in the index; the oldest are evicted beyond it
 * @param sweepInterval how often expired entries are removed from the index
 * @param embedder the model that turns prompts into vectors, and how requests are batched for it
 * @param audit the spot checks of served hits
 * @param embedEarly start embedding a request's text in parallel with its exact lookup
 * @param speculativeUpstream send a request upstream while its semantic lookup runs (into idle capacity only); a
 *                            hit cancels the call
 */
public record SemanticCacheSettings(boolean enabled, SemanticStore store, double threshold, String decision,
                                    double maxErrorRate, double budgetDelta, int neighbours, Duration ttl,
                                    String path, QdrantSettings qdrant, long maxEntries, Duration sweepInterval,
                                    EmbedderSettings embedder, AuditSettings audit, boolean embedEarly,
                                    boolean speculativeUpstream) {

    public SemanticCacheSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(decision, "decision");
        if (neighbours < 1) {
            throw new IllegalArgumentException("neighbours must be at least 1, was " + neighbours);
        }
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(qdrant, "qdrant");
        Objects.requireNonNull(sweepInterval, "sweepInterval");
        Objects.requireNonNull(embedder, "embedder");
        Objects.requireNonNull(audit, "audit");
        if (!(maxErrorRate >= 0 && maxErrorRate < 0.5)) {
            throw new IllegalArgumentException("maxErrorRate must be in [0, 0.5), was " + maxErrorRate);
        }
        if (!(budgetDelta >= 0 && budgetDelta <= 0.5)) {
            throw new IllegalArgumentException("budgetDelta must be in [0, 0.5], was " + budgetDelta);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
    }

    /** Every key of {@code cache.semantic} at its default (see {@code CacheKeys}): disabled. */
    public static SemanticCacheSettings defaults() {
        return new SemanticCacheSettings(CacheKeys.ENABLED.fallback(), CacheKeys.SEMANTIC_STORE.fallback(),
                CacheKeys.THRESHOLD.fallback(), CacheKeys.DECISION.fallback(), CacheKeys.MAX_ERROR_RATE.fallback(),
                CacheKeys.BUDGET_DELTA.fallback(), CacheKeys.NEIGHBOURS.fallback(), CacheKeys.SEMANTIC_TTL.fallback(), CacheKeys.PATH.fallback(),
                QdrantSettings.defaults(), CacheKeys.MAX_ENTRIES.fallback(), CacheKeys.SWEEP_INTERVAL.fallback(),
                EmbedderSettings.defaults(), AuditSettings.defaults(), CacheKeys.EMBED_EARLY.fallback(),
                CacheKeys.SPECULATIVE_UPSTREAM.fallback());
    }

    /** These settings with the index under {@code directory} instead. */
    public SemanticCacheSettings withPath(String directory) {
        return new SemanticCacheSettings(enabled, store, threshold, decision, maxErrorRate, budgetDelta, neighbours, ttl,
                directory,
                qdrant, maxEntries, sweepInterval, embedder, audit, embedEarly, speculativeUpstream);
    }

    /** These settings with another budget confidence and audits (the demo serves on the estimate and audits every hit). */
    public SemanticCacheSettings withBudget(double delta, AuditSettings audits) {
        return new SemanticCacheSettings(enabled, store, threshold, decision, maxErrorRate, delta, neighbours, ttl,
                path, qdrant, maxEntries, sweepInterval, embedder, audits, embedEarly, speculativeUpstream);
    }

    /** These settings with speculative upstream calls on or off. */
    public SemanticCacheSettings withSpeculativeUpstream(boolean on) {
        return new SemanticCacheSettings(enabled, store, threshold, decision, maxErrorRate, budgetDelta, neighbours, ttl,
                path, qdrant, maxEntries, sweepInterval, embedder, audit, embedEarly, on);
    }

    /** The embedding model, {@code bundled} or a file; the policy's older spelling of {@code embedder.model}. */
    public String model() {
        return embedder.model();
    }

    /** How token vectors become one sentence vector; {@code cls} is what bge models are trained for. */
    public enum Pooling { CLS, MEAN }

    /**
     * The embedding model and its runtime: an ONNX sentence-embedding model with a HuggingFace
     * tokenizer, and the micro-batching in front of it.
     *
     * @param model {@code bundled} (bge-small-en-v1.5, int8, shipped in the jar), {@code bundled-fp32} (the same
     *              model unquantised, also in the jar) or a path to a {@code .onnx} file
     * @param tokenizer the {@code tokenizer.json} of a model file; empty for the bundled model
     * @param maxTokens longer inputs are truncated to this many tokens
     * @param maxBatch texts per ONNX call at most
     * @param maxWait how long a batch waits for more texts after its first; zero sends what is queued at once
     * @param queueSize texts waiting for the model at most; beyond it a request is a semantic miss
     * @param workers threads calling the model, each running one batch at a time
     * @param intraOpThreads ONNX Runtime threads within one operator; 0 picks half the cores (at least one)
     * @param interOpThreads ONNX Runtime threads across operators
     */
    public record EmbedderSettings(String model, Optional<String> tokenizer, Pooling pooling, boolean normalize,
                                   int maxTokens, int maxBatch, Duration maxWait, int queueSize, int workers,
                                   int intraOpThreads, int interOpThreads) {

        /** The {@code model} value naming the int8 bge-small-en-v1.5 shipped in the jar. */
        public static final String BUNDLED = "bundled";
        /** The {@code model} value naming the fp32 bge-small-en-v1.5 shipped in the jar. */
        public static final String BUNDLED_FP32 = "bundled-fp32";
        /** The {@code model} values naming a model shipped in the jar (with its own tokenizer). */
        public static final List<String> BUNDLED_MODELS = List.of(BUNDLED, BUNDLED_FP32);
        /** The default {@code max_batch} of {@code bundled-fp32} (see docs/caches.md, "Which model"). */
        public static final int FP32_MAX_BATCH = 16;

        public EmbedderSettings {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(tokenizer, "tokenizer");
            Objects.requireNonNull(pooling, "pooling");
            Objects.requireNonNull(maxWait, "maxWait");
            if (!BUNDLED_MODELS.contains(model) && tokenizer.isEmpty()) {
                throw new IllegalArgumentException("a model file (" + model + ") needs its tokenizer.json");
            }
            if (maxTokens < 2 || maxBatch < 1 || queueSize < 1 || workers < 1 || intraOpThreads < 0
                    || interOpThreads < 1 || maxWait.isNegative()) {
                throw new IllegalArgumentException("embedder settings out of range: maxTokens=" + maxTokens
                        + ", maxBatch=" + maxBatch + ", maxWait=" + maxWait + ", queueSize=" + queueSize
                        + ", workers=" + workers + ", intraOpThreads=" + intraOpThreads
                        + ", interOpThreads=" + interOpThreads);
            }
        }

        /**
         * Every key of {@code cache.semantic.embedder} at its default (see {@code CacheKeys}): the bundled
         * model, one text per model call. One text per call because the bundled int8 model quantises
         * activations over the whole call: a text batched with others gets a slightly different vector
         * (cosine about 0.997), and the cache's decisions must not depend on which requests happened to
         * arrive together.
         */
        public static EmbedderSettings defaults() {
            return defaultsFor(CacheKeys.EMBEDDER_MODEL.fallback(), CacheKeys.TOKENIZER.fallback());
        }

        /**
         * Every other key at its default for this model: {@code max_batch} is {@link #FP32_MAX_BATCH} for
         * {@code bundled-fp32}, whose vectors do not depend on their batch-mates, and 1 for the others.
         *
         * @throws IllegalArgumentException when the model is neither bundled nor given a tokenizer
         */
        public static EmbedderSettings defaultsFor(String model, Optional<String> tokenizer) {
            return new EmbedderSettings(model, tokenizer,
                    CacheKeys.POOLING.fallback(), CacheKeys.NORMALIZE.fallback(), CacheKeys.MAX_TOKENS.fallback(),
                    defaultMaxBatch(model), CacheKeys.MAX_WAIT.fallback(), CacheKeys.QUEUE_SIZE.fallback(),
                    CacheKeys.WORKERS.fallback(), CacheKeys.INTRA_OP_THREADS.fallback(),
                    CacheKeys.INTER_OP_THREADS.fallback());
        }

        /** {@code max_batch} when the policy does not set it: see {@link #defaultsFor}. */
        public static int defaultMaxBatch(String model) {
            return BUNDLED_FP32.equals(model) ? FP32_MAX_BATCH : CacheKeys.MAX_BATCH.fallback();
        }

        /** Whether the model is one shipped in the jar ({@link #BUNDLED_MODELS}). */
        public boolean bundled() {
            return BUNDLED_MODELS.contains(model);
        }

        /** These settings with another model (a bundled one, or a file with its tokenizer). */
        public EmbedderSettings withModel(String otherModel, Optional<String> otherTokenizer) {
            return new EmbedderSettings(otherModel, otherTokenizer, pooling, normalize, maxTokens, maxBatch, maxWait,
                    queueSize, workers, intraOpThreads, interOpThreads);
        }

        /** The configured intra-op thread count, or half the available cores (at least one) for 0. */
        public int effectiveIntraOpThreads() {
            return intraOpThreads > 0 ? intraOpThreads : Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        }
    }
}
