package io.cachegate.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The keys of each {@code backends} item and of its nested sections; {@link BackendsReader} reads them. */
final class BackendKeys {

    static final Key<Optional<String>> NAME = Key.required("name", "unique; routes refer to it");
    static final Key<List<URI>> URLS = Key.readBySection("urls", "list of URLs", "required",
            "one or more replicas: http(s)://host:port, no path");
    static final Key<List<String>> MODELS = Key.strings("models", List.of("*"),
            "model-name globs (* and ?) this pool serves");
    static final Key<Optional<String>> MODEL_VERSION = Key.optional("model_version", "read from /v1/models",
            "pinned model version for cache keys");
    static final Key<OptionalInt> MAX_CONCURRENCY = Key.optionalInteger("max_concurrency", "auto", 1, 1_000_000,
            "requests in flight per replica; auto: found from each replica's time to first token");
    static final Key<Long> MAX_INFLIGHT_TOKENS = Key.longInteger("max_inflight_tokens", 1_000_000, 1,
            1_000_000_000_000L, "tokens in flight per replica: prompt plus max_tokens of each request");
    static final Key<Integer> MAX_CONNECTIONS_PER_URL = Key.integer("max_connections_per_url", 64, 1, 1_000_000,
            "pooled connections per replica");
    static final Key<Balance> BALANCE = Key.choice("balance", Balance.LEAST_LOADED, true,
            "how a replica is chosen: fewest tokens in flight, where the prompt's prefix is cached, in turn, or by"
                    + " what each replica's KV cache holds (kv_aware)");
    static final Key<List<String>> KV_EVENTS = Key.readBySection("kv_events", "list of strings", "none",
            "one ZeroMQ endpoint per url, in order: where each replica publishes vLLM KV-cache events (kv_aware)");
    static final Key<List<String>> KV_REPLAY = Key.readBySection("kv_replay", "list of strings",
            "each kv_events port + 1", "per url, its replay endpoint, or none");
    static final Key<List<String>> KV_SIBLINGS = Key.readBySection("kv_siblings", "list of URLs", "none",
            "admin URLs of sibling gateways to take the KV index from when the replay lacks what this one missed");
    static final Key<Optional<String>> TOKENIZER = Key.optional("tokenizer", "none",
            "bundled or a tokenizer.json: prompts tokenized as the engine does (kv_aware)");
    static final Key<Optional<String>> CHAT_TEMPLATE = Key.optional("chat_template", "role, newline, content",
            "a Jinja chat template file, as the model's (kv_aware)");
    static final Key<Double> KV_CPU_WEIGHT = Key.decimal("cpu_weight", 0.5, "0..1", v -> v >= 0 && v <= 1,
            v -> v + " is out of range 0..1", "what a block held only in CPU memory counts against one in GPU memory");
    static final Key<Integer> KV_MAX_BLOCKS_PER_REPLICA = Key.integer("max_blocks_per_replica", 262_144, 1,
            100_000_000, "blocks the index keeps per replica (about 130 bytes each)");
    static final Key<Boolean> METRICS = Key.bool("metrics", false,
            "also read each replica's vLLM /metrics (queue, KV cache use) as load");
    static final Key<Optional<String>> API_KEY = Key.optional("api_key", "none",
            "sent upstream as a Bearer token");

    static final Key<Integer> BLOCK_CHARS = Key.integer("block_chars", 256, 1, 1_000_000,
            "characters per hashed prompt block, about 64 tokens at 256");
    static final Key<Integer> MAX_BLOCKS_PER_REPLICA = Key.integer("max_blocks_per_replica", 10_000, 1, 100_000_000,
            "block hashes remembered per replica, least recently used dropped first");
    static final Key<Double> LOAD_FACTOR = Key.decimal("load_factor", 1.5, "1..1000", v -> v >= 1 && v <= 1000,
            v -> v + " is out of range 1..1000 (the replica holding the prefix is passed over when its load is"
                    + " above this many times the others' mean)",
            "pass over the prefix's replica when its load is above this many times the others' mean");

    static final Key<String> HEALTH_PATH = Key.of("path", "string", "/v1/models", "an absolute path without a query",
            "GET this path on each replica: /v1/models or /health", BackendKeys::healthPath);
    static final Key<Duration> INTERVAL = Key.duration("interval", Duration.ofSeconds(5), Duration.ofMillis(100),
            Duration.ofHours(1), "how often");
    static final Key<Integer> FAILURES_TO_EJECT = Key.integer("failures_to_eject", 3, 1, 1000,
            "failures in a row before a replica gets no traffic");
    static final Key<Duration> EJECT_FOR = Key.duration("eject_for", Duration.ofSeconds(10), Duration.ofMillis(100),
            Duration.ofHours(1), "how long it then gets none before it is tried again");

    static final Key<Integer> MAX_ATTEMPTS = Key.integer("max_attempts", 2, 1, 10,
            "attempts in all, the first included; 1 = no retries");
    static final Key<Duration> BACKOFF = Key.duration("backoff", Duration.ofMillis(25), Duration.ZERO,
            Duration.ofSeconds(10), "wait before the retry");

    static final Key<Duration> CONNECT = Key.duration("connect", Duration.ofSeconds(2), "TCP connect");
    static final Key<Duration> FIRST_BYTE = Key.duration("first_byte", Duration.ofSeconds(60),
            "until the first response byte");
    static final Key<Duration> IDLE = Key.duration("idle", Duration.ofSeconds(30),
            "silence in the middle of a stream");
    static final Key<Duration> TOTAL = Key.duration("total", Duration.ofMinutes(10), "the whole call");

    static final Section PREFIX_AFFINITY = Section.mapping("prefix_affinity",
            "only with balance: prefix_affinity: send a prompt where its prefix is cached",
            BLOCK_CHARS, MAX_BLOCKS_PER_REPLICA, LOAD_FACTOR);
    static final Section KV_AWARE = Section.mapping("kv_aware",
            "only with balance: kv_aware: how the index weighs and bounds what replicas hold",
            KV_CPU_WEIGHT, KV_MAX_BLOCKS_PER_REPLICA);
    static final Section HEALTH = Section.mapping("health", "active checks of every replica",
            HEALTH_PATH, INTERVAL, FAILURES_TO_EJECT, EJECT_FOR);
    static final Section RETRIES = Section.mapping("retries",
            "a call failing before the client saw a byte is retried on another replica", MAX_ATTEMPTS, BACKOFF);
    static final Section TIMEOUTS = Section.mapping("timeouts", "upstream call timeouts",
            CONNECT, FIRST_BYTE, IDLE, TOTAL);
    static final Section SECTION = Section.list("backends", "OpenAI-compatible model servers; at least one",
            NAME, URLS, MODELS, MODEL_VERSION, MAX_CONCURRENCY, MAX_INFLIGHT_TOKENS, MAX_CONNECTIONS_PER_URL, BALANCE,
            METRICS, API_KEY, KV_EVENTS, KV_REPLAY, KV_SIBLINGS, TOKENIZER, CHAT_TEMPLATE)
            .with(PREFIX_AFFINITY, KV_AWARE, HEALTH, RETRIES, TIMEOUTS).live();

    private BackendKeys() {
    }

    private static String healthPath(Fields health) {
        String path = health.string(HEALTH_PATH.name(), HEALTH_PATH.fallback()).strip();
        if (!path.startsWith("/") || path.chars().anyMatch(Character::isWhitespace) || path.contains("?")
                || path.contains("#")) {
            health.problem(HEALTH_PATH.name(), Durations.quote(path) + " is not an absolute path without a query"
                    + " (e.g. /v1/models or /health)");
            return HEALTH_PATH.fallback();
        }
        return path;
    }
}
