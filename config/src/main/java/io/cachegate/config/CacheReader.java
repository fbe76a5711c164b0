package io.cachegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Reads the {@code cache} section: the exact store and the semantic index. */
final class CacheReader {

    private static final Set<String> KEYS = Set.of("exact", "semantic");
    private static final Set<String> EXACT_KEYS = Set.of("store", "redis_uri", "ttl", "timeout",
            "max_bytes", "l1_ttl", "l1_max_bytes", "compress_above", "redis_queue_size");
    private static final Set<String> SEMANTIC_KEYS =
            Set.of("enabled", "store", "threshold", "decision", "neighbours", "ttl", "model", "path", "qdrant", "max_entries", "sweep_interval",
                    "embedder");
    private static final Set<String> EMBEDDER_KEYS = Set.of("model", "tokenizer", "pooling", "normalize", "max_tokens",
            "max_batch", "max_wait", "queue_size", "workers", "intra_op_threads", "inter_op_threads");
    /** A batch that waits longer than this for company costs more latency than batching saves. */
    private static final Duration MAX_WAIT_LIMIT = Duration.ofSeconds(1);
    /** The match decisions of the semantic cache, in the order messages list them. */
    private static final List<String> DECISIONS = List.of("learned", "guarded", "cosine");
    private static final Set<String> QDRANT_KEYS = Set.of("host", "port", "collection", "api_key", "tls", "timeout");

    private CacheReader() {
    }

    static CacheSettings read(Fields root) {
        Fields cache = root.section("cache", KEYS);
        if (cache == null) {
            return CacheSettings.defaults();
        }
        return new CacheSettings(exact(cache), semantic(cache));
    }

    private static ExactCacheSettings exact(Fields cache) {
        ExactCacheSettings d = ExactCacheSettings.defaults();
        Fields exact = cache.section("exact", EXACT_KEYS);
        if (exact == null) {
            return d;
        }
        String redisUri = exact.string("redis_uri", d.redisUri());
        if (exact.has("redis_uri") && !isRedisUri(redisUri)) {
            exact.problem("redis_uri", Durations.quote(redisUri)
                    + " is not a Redis URI (e.g. redis://127.0.0.1:6379, redis-sentinel://h1:26379,h2:26379#mymaster,"
                    + " redis-cluster://h1:7000,h2:7000)");
        }
        return new ExactCacheSettings(
                exact.choice("store", d.store()),
                redisUri,
                exact.duration("ttl", d.ttl()),
                exact.duration("timeout", d.timeout()),
                exact.size("max_bytes", d.maxBytes(), 1 << 20, Long.MAX_VALUE),
                exact.duration("l1_ttl", d.l1Ttl()),
                exact.size("l1_max_bytes", d.l1MaxBytes(), 1 << 20, Long.MAX_VALUE),
                exact.size("compress_above", d.compressAboveBytes(), 0, Integer.MAX_VALUE),
                (int) exact.integer("redis_queue_size", d.redisQueueSize(), 1, 1_000_000));
    }

    private static boolean isRedisUri(String text) {
        try {
            URI uri = new URI(text.strip());
            String scheme = uri.getScheme();
            if ("redis".equals(scheme) || "rediss".equals(scheme)) {
                return uri.getHost() != null;
            }
            // Sentinel and Cluster URIs list several hosts ("h1:26379,h2:26379"), which java.net.URI
            // keeps as an authority without a host.
            return ("redis-sentinel".equals(scheme) || "rediss-sentinel".equals(scheme)
                    || "redis-cluster".equals(scheme) || "rediss-cluster".equals(scheme))
                    && uri.getRawAuthority() != null && !uri.getRawAuthority().isBlank();
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static SemanticCacheSettings semantic(Fields cache) {
        SemanticCacheSettings d = SemanticCacheSettings.defaults();
        Fields semantic = cache.section("semantic", SEMANTIC_KEYS);
        if (semantic == null) {
            return d;
        }
        return new SemanticCacheSettings(
                semantic.bool("enabled", d.enabled()),
                semantic.choice("store", d.store()),
                semantic.similarity("threshold").orElse(d.threshold()),
                decision(semantic, d.decision()),
                (int) semantic.integer("neighbours", d.neighbours(), 1, 100),
                semantic.duration("ttl", d.ttl()),
                semantic.string("path", d.path()),
                qdrant(semantic),
                semantic.integer("max_entries", d.maxEntries(), 1, 1_000_000_000),
                semantic.duration("sweep_interval", d.sweepInterval()),
                embedder(semantic));
    }

    private static String decision(Fields semantic, String fallback) {
        String name = semantic.string("decision", fallback).strip();
        if (!DECISIONS.contains(name)) {
            semantic.problem("decision", Durations.quote(name) + " is not one of " + String.join(", ", DECISIONS)
                    + Suggestions.didYouMean(name, DECISIONS));
            return fallback;
        }
        return name;
    }

    /**
     * The {@code embedder} map. The model may also be given as {@code semantic.model}, the spelling
     * policies used before the embedder had settings of its own; giving both is a problem.
     */
    private static SemanticCacheSettings.EmbedderSettings embedder(Fields semantic) {
        SemanticCacheSettings.EmbedderSettings d = SemanticCacheSettings.EmbedderSettings.defaults();
        Fields embedder = semantic.section("embedder", EMBEDDER_KEYS);
        String model = semantic.string("model", d.model());
        if (embedder == null) {
            return d;
        }
        boolean fromEmbedder = embedder.has("model");
        if (fromEmbedder) {
            if (semantic.has("model")) {
                semantic.problem("model", "set both here and as embedder.model; keep embedder.model");
            }
            model = embedder.string("model", d.model());
        }
        Optional<String> tokenizer = embedder.optional("tokenizer");
        boolean bundled = SemanticCacheSettings.EmbedderSettings.BUNDLED.equals(model);
        if (bundled && tokenizer.isPresent()) {
            embedder.problem("tokenizer", "is only for a model file; the bundled model brings its own tokenizer");
            tokenizer = Optional.empty();
        } else if (!bundled && tokenizer.isEmpty()) {
            String message = Durations.quote(model) + " is neither bundled nor a model file with"
                    + " embedder.tokenizer (the path of its tokenizer.json)";
            if (fromEmbedder) {
                embedder.problem("model", message);
            } else {
                semantic.problem("model", message);
            }
            model = d.model();
        }
        return new SemanticCacheSettings.EmbedderSettings(
                model,
                tokenizer,
                embedder.choice("pooling", d.pooling()),
                embedder.bool("normalize", d.normalize()),
                (int) embedder.integer("max_tokens", d.maxTokens(), 2, 32_768),
                (int) embedder.integer("max_batch", d.maxBatch(), 1, 4096),
                maxWait(embedder, d.maxWait()),
                (int) embedder.integer("queue_size", d.queueSize(), 1, 1_000_000),
                (int) embedder.integer("workers", d.workers(), 1, 64),
                (int) embedder.integer("intra_op_threads", d.intraOpThreads(), 0, 1024),
                (int) embedder.integer("inter_op_threads", d.interOpThreads(), 1, 1024));
    }

    /** Unlike other durations, zero is meaningful here: send each batch as soon as the worker is free. */
    private static Duration maxWait(Fields embedder, Duration fallback) {
        Optional<String> text = embedder.text("max_wait");
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            Duration value = Durations.parse(text.get());
            if (value.compareTo(MAX_WAIT_LIMIT) > 0) {
                embedder.problem("max_wait", Durations.quote(text.get())
                        + " is longer than 1s; every lone request would wait that long (typical: 1ms to 5ms)");
                return fallback;
            }
            return value;
        } catch (IllegalArgumentException e) {
            embedder.problem("max_wait", e.getMessage());
            return fallback;
        }
    }

    private static QdrantSettings qdrant(Fields semantic) {
        QdrantSettings d = QdrantSettings.defaults();
        Fields qdrant = semantic.section("qdrant", QDRANT_KEYS);
        if (qdrant == null) {
            return d;
        }
        return new QdrantSettings(
                qdrant.string("host", d.host()),
                (int) qdrant.integer("port", d.port(), 1, 65_535),
                qdrant.string("collection", d.collection()),
                qdrant.optional("api_key"),
                qdrant.bool("tls", d.tls()),
                qdrant.duration("timeout", d.timeout()));
    }
}
