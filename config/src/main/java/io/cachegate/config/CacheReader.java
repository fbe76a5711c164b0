package io.cachegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Set;

/** Reads the {@code cache} section: the exact store and the semantic index. */
final class CacheReader {

    private static final Set<String> KEYS = Set.of("exact", "semantic");
    private static final Set<String> EXACT_KEYS = Set.of("store", "redis_uri", "ttl", "timeout",
            "max_bytes", "l1_ttl", "l1_max_bytes", "compress_above", "redis_queue_size");
    private static final Set<String> SEMANTIC_KEYS =
            Set.of("enabled", "store", "threshold", "ttl", "model", "path", "qdrant");
    private static final Set<String> QDRANT_KEYS = Set.of("host", "port", "collection", "api_key");

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
        double threshold = semantic.decimal("threshold", d.threshold());
        if (!(threshold > 0 && threshold <= 1)) {
            semantic.problem("threshold", threshold + " is outside (0, 1]; similarity 1 means identical");
            threshold = d.threshold();
        }
        return new SemanticCacheSettings(
                semantic.bool("enabled", d.enabled()),
                semantic.choice("store", d.store()),
                threshold,
                semantic.duration("ttl", d.ttl()),
                semantic.string("model", d.model()),
                semantic.string("path", d.path()),
                qdrant(semantic));
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
                qdrant.optional("api_key"));
    }
}
