package io.cachegate.config;

import static io.cachegate.config.RouteKeys.BACKEND;
import static io.cachegate.config.RouteKeys.CLASS;
import static io.cachegate.config.RouteKeys.CONTEXT;
import static io.cachegate.config.RouteKeys.DEFAULT_MAX_TOKENS;
import static io.cachegate.config.RouteKeys.EMBED;
import static io.cachegate.config.RouteKeys.EXACT;
import static io.cachegate.config.RouteKeys.KEY_ON_USER;
import static io.cachegate.config.RouteKeys.MATCH_MODEL;
import static io.cachegate.config.RouteKeys.MATCH_PATH;
import static io.cachegate.config.RouteKeys.MATCH_TENANT;
import static io.cachegate.config.RouteKeys.NONDETERMINISTIC;
import static io.cachegate.config.RouteKeys.NORMALIZE;
import static io.cachegate.config.RouteKeys.SEMANTIC;
import static io.cachegate.config.RouteKeys.SEMANTIC_MAX_TURNS;
import static io.cachegate.config.RouteKeys.SENSITIVE;
import static io.cachegate.config.RouteKeys.SERVER_STATE;
import static io.cachegate.config.RouteKeys.SHARED;
import static io.cachegate.config.RouteKeys.STORE_FINISH_REASONS;
import static io.cachegate.config.RouteKeys.THRESHOLD;
import static io.cachegate.config.RouteKeys.TOKENIZER;
import static io.cachegate.config.RouteKeys.TTL;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code routes} list (keys in {@link RouteKeys}) and checks every name it uses against the
 * backends, tenants and classes already read, so a typo fails at load time rather than as a 404 in production.
 */
final class RoutesReader {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private final Fields root;
    private final Set<String> backends;
    private final FallbackChainReader fallbacks;
    private final Set<String> tenants;
    private final Map<String, TrafficClass> classes;
    private final String defaultClass;

    RoutesReader(Fields root, List<Backend> backends, List<Tenant> tenants, Map<String, TrafficClass> classes) {
        this.root = root;
        this.backends = backends.stream().map(Backend::name).collect(Collectors.toSet());
        this.fallbacks = new FallbackChainReader(backends.stream()
                .collect(Collectors.toMap(Backend::name, b -> b, (a, b) -> a)));
        this.tenants = tenants.stream().map(Tenant::id).collect(Collectors.toSet());
        this.classes = classes;
        this.defaultClass = classes.containsKey("interactive") || classes.isEmpty()
                ? "interactive" : classes.keySet().iterator().next();
    }

    List<Route> read() {
        Section section = RouteKeys.SECTION;
        if (!root.has(section.name())) {
            return List.of(new Route(0, RouteMatch.any(), Optional.empty(), Optional.empty(), defaultClass,
                    RouteCache.defaults()));
        }
        List<Node> items = root.items(section.name());
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            root.problem(section.name(), "at least one route is required (or leave routes out for a catch-all)");
        }
        List<Route> routes = new ArrayList<>();
        Map<String, Integer> lines = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), section.name() + "[" + i + "]", section.names());
            if (fields != null) {
                routes.add(route(i, name(fields, lines), fields));
            }
        }
        return routes;
    }

    /** {@code name}: a label of its own, unique, which no unnamed route's index label can equal. */
    private static Optional<String> name(Fields fields, Map<String, Integer> lines) {
        Optional<String> name = fields.optional(RouteKeys.NAME.name());
        if (name.isEmpty()) {
            return name;
        }
        String n = name.get();
        if (!NAME.matcher(n).matches() || n.chars().allMatch(c -> c >= '0' && c <= '9') || n.equals("none")) {
            fields.problem(RouteKeys.NAME.name(), Durations.quote(n) + " is not a route name: 1 to 64 letters,"
                    + " digits, _ . or -, starting with a letter or digit, not all digits (an unnamed route's label)"
                    + " and not none");
            return Optional.empty();
        }
        Integer first = lines.putIfAbsent(n, fields.line(RouteKeys.NAME.name()));
        if (first != null) {
            fields.problem(RouteKeys.NAME.name(), Durations.quote(n) + " is already the name of the route on line "
                    + first);
        }
        return name;
    }

    private Route route(int index, Optional<String> name, Fields fields) {
        Optional<String> backend = fields.reference(BACKEND.name(), backends, "backend");
        List<FallbackHop> chain = fallbacks.read(fields, backend);
        String trafficClass = fields.reference(CLASS.name(), classes.keySet(), "class").orElse(defaultClass);
        RouteMatch match = match(fields);
        RouteCache cache = cache(fields);
        return new Route(index, name, match, backend, chain, trafficClass, cache, fields.get(DEFAULT_MAX_TOKENS),
                fields.get(TOKENIZER));
    }

    private RouteMatch match(Fields route) {
        Fields match = route.section(RouteKeys.MATCH);
        if (match == null) {
            return RouteMatch.any();
        }
        return new RouteMatch(
                match.get(MATCH_MODEL),
                match.reference(MATCH_TENANT.name(), tenants, "tenant"),
                match.get(MATCH_PATH));
    }

    private static RouteCache cache(Fields route) {
        Fields cache = route.section(RouteKeys.CACHE);
        if (cache == null) {
            return RouteCache.defaults();
        }
        boolean exact = cache.get(EXACT);
        boolean semantic = cache.get(SEMANTIC);
        if (semantic && !exact) {
            cache.problem(SEMANTIC.name(), "needs exact: true (a semantic entry points at the exact cache's entry)");
            semantic = false;
        }
        return new RouteCache(
                exact,
                semantic,
                cache.get(TTL),
                cache.get(CONTEXT),
                cache.get(NORMALIZE),
                cache.get(SHARED),
                cache.get(NONDETERMINISTIC),
                cache.get(KEY_ON_USER),
                cache.get(STORE_FINISH_REASONS),
                cache.get(EMBED),
                cache.get(SEMANTIC_MAX_TURNS),
                cache.get(THRESHOLD),
                cache.get(SENSITIVE),
                cache.get(SERVER_STATE),
                cache.get(RouteKeys.STALE_IF_ERROR),
                cache.get(RouteKeys.STALE_WHILE_REVALIDATE));
    }
}
