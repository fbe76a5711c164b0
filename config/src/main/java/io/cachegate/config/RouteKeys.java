package io.cachegate.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/** The keys of each {@code routes} item, its {@code match} and its {@code cache}; {@link RoutesReader} reads them. */
final class RouteKeys {

    /** The OpenAI finish reasons, in the order messages list them. */
    static final List<String> FINISH_REASONS = List.of("stop", "length", "tool_calls", "content_filter");

    static final Key<Optional<String>> NAME = Key.readBySection("name", "string", "the route's index (0, 1, ...)",
            "the route's label in metrics, logs, traces, the error budget's evidence and the status page, kept when"
                    + " routes are reordered; unique; letters, digits, _ . - (at most 64, not all digits)");
    static final Key<String> MATCH_MODEL = Key.string("model", "*", "model-name glob (* and ?)");
    static final Key<Optional<String>> MATCH_TENANT = Key.readBySection("tenant", "tenant id", "any tenant",
            "a tenant id");
    static final Key<String> MATCH_PATH = Key.string("path", "*", "request-path glob");

    static final Key<Optional<String>> BACKEND = Key.readBySection("backend", "backend name",
            "the first backend whose models match", "the backend serving the route");
    static final Key<Optional<String>> FALLBACK = Key.readBySection("fallback", "backend name", "none",
            "a one-hop fallbacks: tried when the backend is down, for a class that may degrade under overload,"
                    + " or after a context-length error");
    static final Key<Optional<String>> FALLBACK_MODEL = Key.optional("fallback_model", "the request's model",
            "the model asked of the fallback, which may then be the route's own backend");
    static final Key<List<FallbackHop>> FALLBACKS = Key.readBySection("fallbacks",
            "list of backend names or {backend, model}", "none",
            "the fallback chain, tried in order (primary down, overload, context length), each hop at most once;"
                    + " instead of fallback / fallback_model");
    static final Key<String> CLASS = Key.readBySection("class", "class name",
            "interactive if declared, else the first class", "the traffic class of the route's requests");
    static final Key<Integer> DEFAULT_MAX_TOKENS = Key.integer("default_max_tokens", 1024, 1, 10_000_000,
            "output tokens a request costs when it gives no max_tokens");
    static final Key<Optional<String>> TOKENIZER = Key.of("tokenizer", "path", Optional.empty(),
            "estimate from the text", "a readable tokenizer.json",
            "a HuggingFace tokenizer.json counting prompt tokens (else estimated from the text, over-estimating)",
            RouteKeys::tokenizer);

    static final Key<Boolean> EXACT = Key.bool("exact", true, "use the exact cache");
    static final Key<Boolean> SEMANTIC = Key.bool("semantic", false, "use the semantic cache; needs exact: true");
    static final Key<Optional<Duration>> TTL = Key.optionalDuration("ttl", "the store's ttl",
            "lifetime of the entries this route writes");
    static final Key<Optional<Duration>> STALE_IF_ERROR = Key.optionalDuration("stale_if_error",
            "that of cache.exact.stale_if_error", Duration.ZERO, CacheKeys.MAX_STALE,
            "how long past its TTL an entry of this route may answer when the backend fails; 0s: off for the route");
    static final Key<Optional<Duration>> STALE_WHILE_REVALIDATE = Key.optionalDuration("stale_while_revalidate",
            "that of cache.exact.stale_while_revalidate", Duration.ZERO, CacheKeys.MAX_STALE,
            "how long past its TTL an entry of this route answers at once while one background call refreshes it; "
                    + "0s: off for the route");
    static final Key<Optional<String>> CONTEXT = Key.optional("context", "none",
            "mixed into the key: answers depend on this data version");
    static final Key<Normalize> NORMALIZE = Key.choice("normalize", Normalize.NONE, false,
            "applied to the prompt before keying");
    static final Key<Boolean> SHARED = Key.bool("shared", false,
            "share entries across tenants; never for personal data");
    static final Key<Boolean> NONDETERMINISTIC = Key.bool("nondeterministic", false,
            "also cache sampled answers: every client then gets the first sample");
    static final Key<Boolean> KEY_ON_USER = Key.bool("key_on_user", false,
            "put the request's user field in the key: per-user answers");
    static final Key<Set<String>> STORE_FINISH_REASONS = Key.of("store_finish_reasons", "list of finish reasons",
            Set.of("stop"), String.join(", ", FINISH_REASONS),
            "answers are stored only when every choice ended so", RouteKeys::finishReasons);
    static final Key<Embed> EMBED = Key.choice("embed", Embed.LAST_USER, false,
            "the user text compared by meaning: the last message or all of them");
    static final Key<Integer> SEMANTIC_MAX_TURNS = Key.integer("semantic_max_turns", 1, 1, 10_000,
            "conversations with more user turns are not matched semantically");
    static final Key<Optional<Double>> THRESHOLD = Key.of("threshold", "number", Optional.empty(),
            "that of cache.semantic.threshold", "(0, 1]", "this route's semantic threshold",
            RouteKeys::threshold);

    static final Key<SensitiveMode> SENSITIVE = Key.choice("sensitive", SensitiveMode.NO_STORE, true,
            "requests or answers with personal data or secrets: no_store (BYPASS), private (per end user), allow");

    static final Key<Boolean> SERVER_STATE = Key.bool("server_state", false,
            "also cache Responses API requests continuing backend state (previous_response_id, conversation)");

    static final Section MATCH = Section.mapping("match", "which requests the route serves",
            MATCH_MODEL, MATCH_TENANT, MATCH_PATH);
    static final Section CACHE = Section.mapping("cache", "the route's cache behaviour",
            EXACT, SEMANTIC, TTL, STALE_IF_ERROR, STALE_WHILE_REVALIDATE, CONTEXT, NORMALIZE, SHARED, NONDETERMINISTIC, KEY_ON_USER, STORE_FINISH_REASONS,
            EMBED, SEMANTIC_MAX_TURNS, THRESHOLD, SENSITIVE, SERVER_STATE);
    static final Section SECTION = Section.list("routes", "first match wins; default: one catch-all route",
            NAME, BACKEND, FALLBACK, FALLBACK_MODEL, FALLBACKS, CLASS, DEFAULT_MAX_TOKENS, TOKENIZER)
            .with(MATCH, CACHE).live();

    private RouteKeys() {
    }

    /** {@code tokenizer}: the path of a readable HuggingFace {@code tokenizer.json}. */
    private static Optional<String> tokenizer(Fields route) {
        Optional<String> path = route.optional(TOKENIZER.name());
        if (path.isPresent() && !Files.isReadable(Path.of(path.get()))) {
            route.problem(TOKENIZER.name(), Durations.quote(path.get())
                    + " is not a readable file (a HuggingFace tokenizer.json)");
            return Optional.empty();
        }
        return path;
    }

    private static Optional<Double> threshold(Fields cache) {
        return cache.similarity(THRESHOLD.name());
    }

    /** {@code store_finish_reasons}: a non-empty list of OpenAI finish reasons, each checked with its line. */
    private static Set<String> finishReasons(Fields cache) {
        String key = STORE_FINISH_REASONS.name();
        Set<String> fallback = STORE_FINISH_REASONS.fallback();
        List<Node> items = cache.items(key);
        if (items == null || !cache.has(key)) {
            return fallback;
        }
        if (items.isEmpty()) {
            cache.problem(key, "must list at least one value (e.g. [stop])");
            return fallback;
        }
        Set<String> reasons = new LinkedHashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String itemPath = cache.path(key) + "[" + i + "]";
            String value = cache.reader().text(items.get(i), itemPath);
            if (NodeReader.isNull(items.get(i)) || value != null && value.isBlank()) {
                cache.reader().problem(items.get(i), itemPath, "must not be empty");
            } else if (value == null) {
                continue; // a wrong type, already reported
            } else if (FINISH_REASONS.contains(value.strip())) {
                reasons.add(value.strip());
            } else {
                cache.reader().problem(items.get(i), itemPath, Durations.quote(value) + " is not one of "
                        + String.join(", ", FINISH_REASONS) + Suggestions.didYouMean(value, FINISH_REASONS));
            }
        }
        return reasons.isEmpty() ? fallback : reasons;
    }
}
