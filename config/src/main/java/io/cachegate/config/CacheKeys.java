package io.cachegate.config;

import io.cachegate.config.SemanticCacheSettings.Pooling;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The keys of {@code cache.exact}, {@code cache.semantic}, its embedder and qdrant; {@link CacheReader} reads them.
 * The exact store and the semantic cache (model, index, store) are built once, so their settings wait for a
 * restart; a new exact TTL, stale window and the sensitive patterns apply live.
 */
final class CacheKeys {

    /** The match decisions of the semantic cache, in the order messages list them. */
    private static final List<String> DECISIONS = List.of("learned", "guarded", "cosine");
    /** A batch that waits longer than this for company costs more latency than batching saves. */
    private static final Duration MAX_WAIT_LIMIT = Duration.ofSeconds(1);
    /** A stale window beyond a week keeps answers nobody would call current; the bound also catches unit slips. */
    static final Duration MAX_STALE = Duration.ofDays(7);

    static final Key<ExactStore> EXACT_STORE = Key.choice("store", ExactStore.MEMORY, false,
            "memory (in-process), redis (shared), or tiered: an in-process L1 in front of redis").restart();
    static final Key<String> REDIS_URI = Key.of("redis_uri", "Redis URI", "redis://127.0.0.1:6379",
            "redis://, rediss://, redis-sentinel://h1,h2#master, redis-cluster://h1,h2",
            "the Redis of the redis and tiered stores", CacheKeys::redisUri).restart();
    static final Key<Duration> EXACT_TTL = Key.duration("ttl", Duration.ofHours(1),
            "entry lifetime; routes may override");
    static final Key<Duration> STALE_IF_ERROR = Key.duration("stale_if_error", Duration.ZERO, Duration.ZERO,
            MAX_STALE, "how long past its TTL an entry may still answer when the backend fails, times out or is "
                    + "overloaded (X-Cache: STALE); entries are kept for ttl + this; 0s: off; routes may override");
    static final Key<Duration> STALE_WHILE_REVALIDATE = Key.duration("stale_while_revalidate", Duration.ZERO,
            Duration.ZERO, MAX_STALE, "how long past its TTL an entry still answers at once (X-Cache: STALE) while one "
                    + "background call refreshes it; entries are kept for ttl + the longer window; 0s: off; routes may "
                    + "override");
    static final Key<Duration> TIMEOUT = Key.duration("timeout", Duration.ofMillis(50),
            "Redis command timeout at least; it follows measured latency up to health.timeout_max; slower counts as a "
                    + "miss, the request goes on").restart();
    static final Key<Long> MAX_BYTES = Key.size("max_bytes", 256L << 20, 1 << 20, Long.MAX_VALUE,
            "memory store bound, in bytes of stored answers").restart();
    static final Key<Duration> L1_TTL = Key.duration("l1_ttl", Duration.ofSeconds(5),
            "tiered: L1 entry lifetime; purges, overwrites and any other change to an entry in Redis reach it at once"
                    + " (pub/sub, CLIENT TRACKING)")
            .restart();
    static final Key<Long> L1_MAX_BYTES = Key.size("l1_max_bytes", 32L << 20, 1 << 20, Long.MAX_VALUE,
            "tiered: L1 bound").restart();
    static final Key<Long> COMPRESS_ABOVE = Key.size("compress_above", 4L << 10, 0, Integer.MAX_VALUE,
            "Redis: bodies larger than this are stored compressed").restart();
    static final Key<Integer> REDIS_QUEUE_SIZE = Key.integer("redis_queue_size", 10_000, 1, 1_000_000,
            "Redis commands waiting at once; beyond it, misses").restart();
    static final Key<Optional<SigningKey>> SIGNING_KEY = Key.<Optional<SigningKey>>of("signing_key", "string", Optional.empty(),
            "none: CRC only", ">= 32 bytes", "Redis: HMAC-SHA256 key signing entries; unsigned or badly signed is a miss",
            CacheKeys::signingKey).restart();

    // cache.exact.health. 50 operations are a fraction of a second of a busy gateway's lookups, yet enough that one
    // stalled command (or the handful in flight with it) stays far below half of them; 20 before any decision keep a
    // quiet gateway's first few failures from degrading it.
    static final Key<Integer> HEALTH_WINDOW = Key.integer("window", 50, 1, 10_000,
            "Redis store operations the health decision looks back on");
    static final Key<Integer> HEALTH_MIN_CALLS = Key.integer("min_calls", 20, 1, 10_000,
            "operations in the window before it decides anything (at most window)");
    static final Key<Double> HEALTH_FAILURE_RATE = Key.decimal("failure_rate", 0.5, "(0, 1]", v -> v > 0 && v <= 1,
            v -> v + " is not a share in (0, 1] (e.g. 0.5)",
            "share of failed operations in the window (timeouts, refusals) that degrades the store: it fails fast");
    static final Key<Double> HEALTH_SLOW_CALL_RATE = Key.decimal("slow_call_rate", 0.8, "(0, 1]",
            v -> v > 0 && v <= 1, v -> v + " is not a share in (0, 1] (e.g. 0.8)",
            "share of slow operations in the window that degrades the store");
    static final Key<Double> HEALTH_SLOW_CALL = Key.decimal("slow_call", 0.5, "(0, 1]", v -> v > 0 && v <= 1,
            v -> v + " is not a share in (0, 1] (e.g. 0.5)",
            "an operation is slow above this share of the current command timeout");
    static final Key<Duration> HEALTH_OPEN_FOR = Key.duration("open_for", Duration.ofSeconds(2),
            Duration.ofMillis(10), Duration.ofMinutes(10), "a degraded store fails fast this long, then probes");
    static final Key<Integer> HEALTH_PROBES = Key.integer("probes", 3, 1, 1000,
            "operations let through to probe a degraded store; healthy again when they pass");
    static final Key<Duration> HEALTH_TIMEOUT_MAX = Key.duration("timeout_max", Duration.ofSeconds(1),
            "the command timeout follows measured latency up to this (never below timeout)");
    static final Key<Double> HEALTH_TIMEOUT_MULTIPLE = Key.decimal("timeout_multiple", 4, "[1, 100]",
            v -> v >= 1 && v <= 100, v -> v + " is not in [1, 100] (e.g. 4)",
            "the command timeout is this many times the recent p99 of Redis latency");

    static final Key<Boolean> ENABLED = Key.bool("enabled", false, "answer paraphrases of earlier requests");
    static final Key<SemanticStore> SEMANTIC_STORE = Key.choice("store", SemanticStore.EMBEDDED, false,
            "embedded (on local disk) or qdrant");
    static final Key<Double> THRESHOLD = Key.of("threshold", "number", 0.92, "(0, 1]",
            "minimum cosine similarity for a hit; routes may override", CacheKeys::threshold);
    static final Key<String> DECISION = Key.of("decision", "one of " + String.join(", ", DECISIONS), "learned", "",
            "how the nearest entries become a hit", CacheKeys::decision);
    static final Key<Integer> NEIGHBOURS = Key.integer("neighbours", 5, 1, 100,
            "nearest entries of the scope the decision sees");
    static final Key<Duration> SEMANTIC_TTL = Key.duration("ttl", Duration.ofHours(24),
            "entry lifetime; never longer than the exact entry it points at");
    static final Key<Double> MAX_ERROR_RATE = Key.decimal("max_error_rate", 0.01, "[0, 0.5)", v -> v >= 0 && v < 0.5,
            v -> v + " is not in [0, 0.5): the share of semantic hits allowed to be wrong (e.g. 0.01)",
            "error budget: serve a semantic hit only when its estimated chance of being right is at least 1 minus "
                    + "this (with decision learned); 0 uses the static decision");
    static final Key<Double> BUDGET_DELTA = Key.decimal("budget_delta", 0.05, "[0, 0.5]", v -> v >= 0 && v <= 0.5,
            v -> v + " is not in [0, 0.5]: the chance that the error budget's bound fails (e.g. 0.05), or 0",
            "the error budget's confidence: serve a semantic hit only while an always-valid upper bound on its "
                    + "route's and tenant's error rate (per class of the prior: its bin and those above) is within "
                    + "max_error_rate, failing with at most this chance; 0 uses the point estimate instead");
    static final Key<Boolean> EMBED_EARLY = Key.bool("embed_early", false,
            "start embedding the request's text while its exact lookup runs: a semantic miss saves the lookup's "
                    + "time, an exact hit spends an embedding (cancelled only while still queued)");
    static final Key<Boolean> SPECULATIVE_UPSTREAM = Key.bool("speculative_upstream", false,
            "send a request upstream while its semantic lookup runs, when the backend has idle capacity: a miss "
                    + "does not wait for the embedding, a hit cancels the call (the backend may have started on it)");
    static final Key<String> PATH = Key.string("path", "./data",
            "embedded index directory, and the error budget's evidence beside it");
    static final Key<Long> MAX_ENTRIES = Key.longInteger("max_entries", 1_000_000, 1, 1_000_000_000,
            "index entries at most; the oldest are evicted");
    static final Key<Duration> SWEEP_INTERVAL = Key.duration("sweep_interval", Duration.ofMinutes(1),
            "how often expired entries leave the index");
    static final Key<String> MODEL = Key.string("model", SemanticCacheSettings.EmbedderSettings.BUNDLED,
            "the embedding model").replacedBy("embedder.model");

    static final Key<String> EMBEDDER_MODEL = Key.string("model", SemanticCacheSettings.EmbedderSettings.BUNDLED,
            "bundled (bge-small-en-v1.5 int8, in the jar), bundled-fp32 (the same model in fp32, in the jar) or the"
            + " path of an .onnx file");
    static final Key<Optional<String>> TOKENIZER = Key.optional("tokenizer", "none",
            "the tokenizer.json of a model file; required with one, not allowed with bundled");
    static final Key<Pooling> POOLING = Key.choice("pooling", Pooling.CLS, false,
            "token vectors to one vector: cls, or mean over the attention mask");
    static final Key<Boolean> NORMALIZE = Key.bool("normalize", true,
            "L2-normalise vectors, so similarity is a dot product");
    static final Key<Integer> MAX_TOKENS = Key.integer("max_tokens", 512, 2, 32_768,
            "longer prompts are truncated");
    static final Key<Integer> MAX_BATCH = Key.integer("max_batch", 1, 1, 4096,
            "texts per model call at most; above 1 the bundled int8 model's vectors depend on batch-mates;"
            + " 16 when unset with bundled-fp32, whose vectors do not");
    static final Key<Duration> MAX_WAIT = Key.of("max_wait", "duration", Duration.ofMillis(2), "0s..1s",
            "a batch waits this long for more texts after its first; 0s: never", CacheKeys::maxWait);
    static final Key<Integer> QUEUE_SIZE = Key.integer("queue_size", 1024, 1, 1_000_000,
            "texts waiting for the model; beyond it a lookup is a semantic miss");
    static final Key<Integer> WORKERS = Key.integer("workers", 2, 1, 64, "threads calling the model, one batch each");
    static final Key<Integer> INTRA_OP_THREADS = Key.integer("intra_op_threads", 0, 0, 1024,
            "ONNX Runtime threads per operator; 0: half the cores, at least 1");
    static final Key<Integer> INTER_OP_THREADS = Key.integer("inter_op_threads", 1, 1, 1024,
            "ONNX Runtime threads across operators");

    static final Key<Double> AUDIT_RATE = Key.decimal("rate", 0.05, "[0, 1]", v -> v >= 0 && v <= 1,
            v -> v + " is not a share in [0, 1]", "share of semantic hits asked again upstream and compared; 0 for none");
    static final Key<Double> AUDIT_PER_SECOND = Key.decimal("per_second", 2, "(0, 1e6]", v -> v > 0 && v <= 1e6,
            v -> v + " is not in (0, 1e6]", "audits started per second at most");
    static final Key<Double> AUDIT_ANSWER_SIMILARITY = Key.decimal("answer_similarity", 0.9, "(0, 1]",
            v -> v > 0 && v <= 1, v -> v + " is not in (0, 1]",
            "answers of different text agree when their embeddings are at least this similar");
    static final Key<AuditSettings.OnWrong> AUDIT_ON_WRONG = Key.choice("on_wrong", AuditSettings.OnWrong.DEMOTE,
            false, "a wrong verdict: demote (exact repeats only), purge, or record");

    static final Key<String> QDRANT_HOST = Key.string("host", "127.0.0.1", "Qdrant host");
    static final Key<Integer> QDRANT_PORT = Key.integer("port", 6334, 1, 65_535, "gRPC port");
    static final Key<String> COLLECTION = Key.string("collection", "cachegate", "collection name");
    static final Key<Optional<String>> QDRANT_API_KEY = Key.optional("api_key", "none", "Qdrant API key");
    static final Key<Boolean> TLS = Key.bool("tls", false, "TLS to Qdrant, e.g. Qdrant Cloud");
    static final Key<Duration> QDRANT_TIMEOUT = Key.duration("timeout", Duration.ofMillis(200),
            "deadline of each call; slower is a semantic miss");

    static final Key<Boolean> FLEET_COALESCE = Key.bool("coalesce", true,
            "with a redis or tiered store: identical misses at different gateways make one upstream call (a Redis"
            + " lease per key; the others wait for its entry)");
    static final Key<Duration> FLEET_MAX_WAIT = Key.duration("max_wait", Duration.ofSeconds(30),
            "a gateway waits at most this (and never longer than the backend's total timeout) for another's answer,"
            + " then calls the backend itself");
    static final Key<Integer> FLEET_MAX_WAITERS = Key.integer("max_waiters", 10_000, 1, 1_000_000,
            "requests of one gateway waiting for other gateways' answers at once; beyond it, they call the backend");
    static final Key<Duration> FLEET_LEASE_TTL = Key.duration("lease_ttl", Duration.ofSeconds(2),
            Duration.ofMillis(200), Duration.ofMinutes(1),
            "a key's lease lives this long and its gateway renews it every quarter of it: when that gateway dies, a"
            + " waiter elsewhere takes over within about this, not max_wait");
    static final Key<Boolean> FLEET_SHARE_EVIDENCE = Key.bool("share_evidence", true,
            "with a redis or tiered store and the semantic cache: the error budget's verdicts, demoted entries and"
            + " generated answers go to a Redis stream and every gateway files the others' (classes open on the"
            + " fleet's evidence; an entry demoted at one gateway is served by none)");
    static final Key<Long> FLEET_EVIDENCE_EVENTS = Key.longInteger("evidence_events", 200_000, 1_000, 100_000_000,
            "the shared evidence stream keeps about this many verdicts and demotions (about 330 bytes each in Redis):"
            + " what a gateway starting without its own evidence reads");

    static final Key<Optional<String>> PATTERN_NAME = Key.required("name",
            "what logs call a match (letters, digits, _); never the matched text");
    static final Key<Optional<String>> PATTERN_REGEX = Key.required("regex",
            "an RE2 regular expression (linear-time: no catastrophic backtracking), e.g. \"EMP-\\\\d{6}\"");

    static final Section HEALTH = Section.mapping("health",
            "redis and tiered: when the store counts as degraded (fails fast) and how long its commands may take",
            HEALTH_WINDOW, HEALTH_MIN_CALLS, HEALTH_FAILURE_RATE, HEALTH_SLOW_CALL_RATE, HEALTH_SLOW_CALL,
            HEALTH_OPEN_FOR, HEALTH_PROBES, HEALTH_TIMEOUT_MAX, HEALTH_TIMEOUT_MULTIPLE).restart();
    static final Section EXACT = Section.mapping("exact", "identical (canonical) requests",
            EXACT_STORE, REDIS_URI, EXACT_TTL, STALE_IF_ERROR, STALE_WHILE_REVALIDATE, TIMEOUT, MAX_BYTES, L1_TTL, L1_MAX_BYTES, COMPRESS_ABOVE,
            REDIS_QUEUE_SIZE, SIGNING_KEY).with(HEALTH).live();
    static final Section EMBEDDER = Section.mapping("embedder",
            "the model turning prompts into vectors, run in-process on ONNX Runtime",
            EMBEDDER_MODEL, TOKENIZER, POOLING, NORMALIZE, MAX_TOKENS, MAX_BATCH, MAX_WAIT, QUEUE_SIZE, WORKERS,
            INTRA_OP_THREADS, INTER_OP_THREADS);
    static final Section QDRANT = Section.mapping("qdrant", "used when store is qdrant",
            QDRANT_HOST, QDRANT_PORT, COLLECTION, QDRANT_API_KEY, TLS, QDRANT_TIMEOUT);
    static final Section AUDIT = Section.mapping("audit",
            "spot checks: semantic hits asked again upstream in the background, the answers compared",
            AUDIT_RATE, AUDIT_PER_SECOND, AUDIT_ANSWER_SIMILARITY, AUDIT_ON_WRONG);
    static final Section SEMANTIC = Section.mapping("semantic", "paraphrases of earlier deterministic requests",
            ENABLED, SEMANTIC_STORE, THRESHOLD, DECISION, MAX_ERROR_RATE, BUDGET_DELTA, NEIGHBOURS, SEMANTIC_TTL, PATH, MAX_ENTRIES,
            SWEEP_INTERVAL, MODEL, EMBED_EARLY, SPECULATIVE_UPSTREAM).with(EMBEDDER, QDRANT, AUDIT).restart();
    static final Section FLEET = Section.mapping("fleet", "several gateways over one shared store",
            FLEET_COALESCE, FLEET_MAX_WAIT, FLEET_MAX_WAITERS, FLEET_LEASE_TTL, FLEET_SHARE_EVIDENCE,
            FLEET_EVIDENCE_EVENTS).restart();
    static final Section SENSITIVE_PATTERNS = Section.list("sensitive_patterns",
            "the policy's own sensitive data, besides the built-in detectors (routes' cache.sensitive applies)",
            PATTERN_NAME, PATTERN_REGEX).live();
    static final Section SECTION = Section.mapping("cache", "the exact store and the semantic index")
            .with(EXACT, SEMANTIC, FLEET, SENSITIVE_PATTERNS);

    private CacheKeys() {
    }

    private static String redisUri(Fields exact) {
        String redisUri = exact.string(REDIS_URI.name(), REDIS_URI.fallback());
        if (exact.has(REDIS_URI.name()) && !isRedisUri(redisUri)) {
            exact.problem(REDIS_URI.name(), Durations.quote(redisUri)
                    + " is not a Redis URI (e.g. redis://127.0.0.1:6379, redis-sentinel://h1:26379,h2:26379#mymaster,"
                    + " redis-cluster://h1:7000,h2:7000)");
        }
        return redisUri;
    }

    private static Optional<SigningKey> signingKey(Fields exact) {
        Optional<String> text = exact.optional(SIGNING_KEY.name());
        try {
            return text.map(SigningKey::of);
        } catch (IllegalArgumentException e) {
            // The message says how long it is, never what it is.
            exact.problem(SIGNING_KEY.name(), "the signing key " + e.getMessage());
            return Optional.empty();
        }
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

    private static double threshold(Fields semantic) {
        return semantic.similarity(THRESHOLD.name()).orElse(THRESHOLD.fallback());
    }

    private static String decision(Fields semantic) {
        String fallback = DECISION.fallback();
        String name = semantic.string(DECISION.name(), fallback).strip();
        if (!DECISIONS.contains(name)) {
            semantic.problem(DECISION.name(), Durations.quote(name) + " is not one of " + String.join(", ", DECISIONS)
                    + Suggestions.didYouMean(name, DECISIONS));
            return fallback;
        }
        return name;
    }

    /** Unlike other durations, zero is meaningful here: send each batch as soon as the worker is free. */
    private static Duration maxWait(Fields embedder) {
        Duration fallback = MAX_WAIT.fallback();
        Optional<String> text = embedder.text(MAX_WAIT.name());
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            Duration value = Durations.parse(text.get());
            if (value.compareTo(MAX_WAIT_LIMIT) > 0) {
                embedder.problem(MAX_WAIT.name(), Durations.quote(text.get())
                        + " is longer than 1s; every lone request would wait that long (typical: 1ms to 5ms)");
                return fallback;
            }
            return value;
        } catch (IllegalArgumentException e) {
            embedder.problem(MAX_WAIT.name(), e.getMessage());
            return fallback;
        }
    }
}
