package io.cachegate.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code routes} list and checks every name it uses against the backends, tenants and
 * classes already read, so a typo fails at load time rather than as a 404 in production.
 */
final class RoutesReader {

    private static final Set<String> KEYS = Set.of("match", "backend", "fallback", "fallback_model", "class", "cache",
            "default_max_tokens", "tokenizer");
    private static final Set<String> MATCH_KEYS = Set.of("model", "tenant", "path");
    private static final Set<String> CACHE_KEYS = Set.of("exact", "semantic", "ttl", "context", "normalize", "shared",
            "nondeterministic", "key_on_user", "store_finish_reasons", "embed", "semantic_max_turns", "threshold");
    /** In the order the error message lists them. */
    private static final List<String> FINISH_REASONS = List.of("stop", "length", "tool_calls", "content_filter");

    private final Fields root;
    private final Set<String> backends;
    private final List<Backend> backendList;
    private final Set<String> tenants;
    private final Map<String, TrafficClass> classes;
    private final String defaultClass;

    RoutesReader(Fields root, List<Backend> backends, List<Tenant> tenants, Map<String, TrafficClass> classes) {
        this.root = root;
        this.backends = backends.stream().map(Backend::name).collect(Collectors.toSet());
        this.backendList = backends;
        this.tenants = tenants.stream().map(Tenant::id).collect(Collectors.toSet());
        this.classes = classes;
        this.defaultClass = classes.containsKey("interactive") || classes.isEmpty()
                ? "interactive" : classes.keySet().iterator().next();
    }

    List<Route> read() {
        if (!root.has("routes")) {
            return List.of(new Route(0, RouteMatch.any(), Optional.empty(), Optional.empty(), defaultClass,
                    RouteCache.defaults()));
        }
        List<Node> items = root.items("routes");
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            root.problem("routes", "at least one route is required (or leave routes out for a catch-all)");
        }
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), "routes[" + i + "]", KEYS);
            if (fields != null) {
                routes.add(route(i, fields));
            }
        }
        return routes;
    }

    private Route route(int index, Fields fields) {
        Optional<String> backend = reference(fields, "backend", backends, "backend");
        Optional<String> fallback = reference(fields, "fallback", backends, "backend");
        Optional<String> fallbackModel = fallbackModel(fields, fallback);
        // The own backend is a fallback only when asked for another model (e.g. a smaller one it also serves).
        if (backend.isPresent() && backend.equals(fallback) && fallbackModel.isEmpty()) {
            fields.problem("fallback", Durations.quote(fallback.get()) + " is the route's own backend");
        }
        String trafficClass = reference(fields, "class", classes.keySet(), "class").orElse(defaultClass);
        RouteMatch match = match(fields);
        RouteCache cache = cache(fields);
        int defaultMaxTokens = (int) fields.integer("default_max_tokens", Route.DEFAULT_MAX_TOKENS, 1, 10_000_000);
        return new Route(index, match, backend, fallback, trafficClass, cache, fallbackModel, defaultMaxTokens,
                tokenizer(fields));
    }

    /** {@code tokenizer}: the path of a readable HuggingFace {@code tokenizer.json}. */
    private static Optional<String> tokenizer(Fields route) {
        Optional<String> path = route.optional("tokenizer");
        if (path.isPresent() && !Files.isReadable(Path.of(path.get()))) {
            route.problem("tokenizer", Durations.quote(path.get()) + " is not a readable file (a HuggingFace tokenizer.json)");
            return Optional.empty();
        }
        return path;
    }

    /** {@code fallback_model}: needs a fallback backend, which must serve that model. */
    private Optional<String> fallbackModel(Fields route, Optional<String> fallback) {
        Optional<String> model = route.optional("fallback_model");
        if (model.isEmpty()) {
            return model;
        }
        if (!route.has("fallback")) {
            route.problem("fallback_model", "needs fallback (the backend to send " + Durations.quote(model.get())
                    + " to)");
            return Optional.empty();
        }
        for (Backend b : backendList) {
            if (fallback.isPresent() && b.name().equals(fallback.get()) && !b.serves(model.get())) {
                route.problem("fallback_model", "backend " + Durations.quote(b.name()) + " does not serve "
                        + Durations.quote(model.get()) + " (its models: " + String.join(", ", b.models()) + ")");
                return Optional.empty();
            }
        }
        return model;
    }

    private RouteMatch match(Fields route) {
        Fields match = route.section("match", MATCH_KEYS);
        if (match == null) {
            return RouteMatch.any();
        }
        return new RouteMatch(
                match.string("model", "*"),
                reference(match, "tenant", tenants, "tenant"),
                match.string("path", "*"));
    }

    private static RouteCache cache(Fields route) {
        RouteCache d = RouteCache.defaults();
        Fields cache = route.section("cache", CACHE_KEYS);
        if (cache == null) {
            return d;
        }
        boolean exact = cache.bool("exact", d.exact());
        boolean semantic = cache.bool("semantic", d.semantic());
        if (semantic && !exact) {
            cache.problem("semantic", "needs exact: true (a semantic entry points at the exact cache's entry)");
            semantic = false;
        }
        return new RouteCache(
                exact,
                semantic,
                cache.optionalDuration("ttl"),
                cache.optional("context"),
                cache.choice("normalize", d.normalize()),
                cache.bool("shared", d.shared()),
                cache.bool("nondeterministic", d.nondeterministic()),
                cache.bool("key_on_user", d.keyOnUser()),
                finishReasons(cache, d.storeFinishReasons()),
                cache.choice("embed", d.embed()),
                (int) cache.integer("semantic_max_turns", d.semanticMaxTurns(), 1, 10_000),
                cache.similarity("threshold"));
    }

    /** {@code store_finish_reasons}: a non-empty list of OpenAI finish reasons, each checked with its line. */
    private static Set<String> finishReasons(Fields cache, Set<String> fallback) {
        String key = "store_finish_reasons";
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

    private static Optional<String> reference(Fields fields, String key, Collection<String> known, String kind) {
        return fields.reference(key, known, kind);
    }
}
