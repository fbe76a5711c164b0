package io.cachegate.config;

import static io.cachegate.config.RouteKeys.FALLBACK;
import static io.cachegate.config.RouteKeys.FALLBACKS;
import static io.cachegate.config.RouteKeys.FALLBACK_MODEL;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Reads a route's fallback chain: {@code fallbacks: [small, {backend: tiny, model: qwen2.5-0.5b}]}, or the older
 * single hop {@code fallback} with its {@code fallback_model}, never both. Every hop names a known backend that
 * serves its model; a hop repeated, or the route's own backend without another model, is an error, so each hop
 * is tried at most once per request.
 */
final class FallbackChainReader {

    private static final String HOP_BACKEND = "backend";
    private static final String HOP_MODEL = "model";
    private static final Set<String> HOP_KEYS = Set.of(HOP_BACKEND, HOP_MODEL);

    private final Map<String, Backend> backends;

    FallbackChainReader(Map<String, Backend> backends) {
        this.backends = backends;
    }

    /** The route's chain, in order; empty when it has none or after a reported problem. */
    List<FallbackHop> read(Fields route, Optional<String> ownBackend) {
        boolean single = route.has(FALLBACK.name()) || route.has(FALLBACK_MODEL.name());
        if (route.has(FALLBACKS.name())) {
            if (single) {
                route.problem(FALLBACKS.name(), "the route sets both fallbacks and fallback"
                        + (route.has(FALLBACK_MODEL.name()) ? " / fallback_model" : "")
                        + "; keep one (fallbacks: [a, b] lists the chain in order)");
                return List.of();
            }
            return chain(route, ownBackend);
        }
        return single(route, ownBackend);
    }

    /** {@code fallback} and {@code fallback_model}: a chain of at most one hop. */
    private List<FallbackHop> single(Fields route, Optional<String> ownBackend) {
        Optional<String> fallback = route.reference(FALLBACK.name(), backends.keySet(), "backend");
        Optional<String> model = route.get(FALLBACK_MODEL);
        if (model.isPresent() && !route.has(FALLBACK.name())) {
            route.problem(FALLBACK_MODEL.name(), "needs fallback (the backend to send " + Durations.quote(model.get())
                    + " to)");
            return List.of();
        }
        if (fallback.isEmpty()) {
            return List.of();
        }
        if (model.isPresent() && !serves(fallback.get(), model.get())) {
            route.problem(FALLBACK_MODEL.name(), notServed(fallback.get(), model.get()));
            return List.of();
        }
        // The own backend is a fallback only when asked for another model (e.g. a smaller one it also serves).
        if (ownBackend.equals(fallback) && model.isEmpty()) {
            route.problem(FALLBACK.name(), Durations.quote(fallback.get()) + " is the route's own backend");
            return List.of();
        }
        return List.of(new FallbackHop(fallback.get(), model));
    }

    private List<FallbackHop> chain(Fields route, Optional<String> ownBackend) {
        List<Node> items = route.items(FALLBACKS.name());
        if (items == null) {
            return List.of(); // a wrong type, already reported
        }
        if (items.isEmpty()) {
            route.problem(FALLBACKS.name(), "must list at least one fallback (or leave fallbacks out)");
            return List.of();
        }
        List<FallbackHop> chain = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            String path = route.path(FALLBACKS.name()) + "[" + i + "]";
            Node item = items.get(i);
            Optional<FallbackHop> hop = hop(route.reader(), item, path);
            if (hop.isEmpty()) {
                continue;
            }
            int earlier = chain.indexOf(hop.get());
            if (earlier >= 0) {
                route.reader().problem(item, path, Durations.quote(hop.get().toString())
                        + " is already in the chain (fallbacks[" + earlier + "]); each hop is tried at most once");
            } else if (ownBackend.equals(Optional.of(hop.get().backend())) && hop.get().model().isEmpty()) {
                route.reader().problem(item, path, Durations.quote(hop.get().backend())
                        + " is the route's own backend (name another model to use it as a fallback)");
            } else {
                chain.add(hop.get());
            }
        }
        return List.copyOf(chain);
    }

    /** One item: a backend name, or a mapping {@code {backend, model}}. */
    private Optional<FallbackHop> hop(NodeReader reader, Node item, String path) {
        if (NodeReader.isNull(item)) {
            reader.problem(item, path, "must not be empty (a backend name, or {backend: name, model: name})");
            return Optional.empty();
        }
        if (item instanceof ScalarNode) {
            return backend(reader, item, path, reader.text(item, path)).map(FallbackHop::of);
        }
        Fields fields = reader.fields(item, path, HOP_KEYS);
        if (fields == null) {
            return Optional.empty(); // a wrong type, already reported
        }
        if (!fields.has(HOP_BACKEND)) {
            reader.problem(item, path, "needs backend (the backend to send the request to)");
            return Optional.empty();
        }
        Optional<String> backend = backend(reader, fields.node(HOP_BACKEND), fields.path(HOP_BACKEND),
                fields.text(HOP_BACKEND).orElse(null));
        Optional<String> model = fields.optional(HOP_MODEL);
        if (backend.isEmpty()) {
            return Optional.empty();
        }
        if (model.isPresent() && !serves(backend.get(), model.get())) {
            fields.problem(HOP_MODEL, notServed(backend.get(), model.get()));
            return Optional.empty();
        }
        return Optional.of(new FallbackHop(backend.get(), model));
    }

    private Optional<String> backend(NodeReader reader, Node node, String path, String name) {
        if (NodeReader.isNull(node) || name != null && name.isBlank()) {
            reader.problem(node, path, "must not be empty");
            return Optional.empty();
        }
        if (name == null) {
            return Optional.empty(); // a wrong type, already reported
        }
        String stripped = name.strip();
        if (!backends.containsKey(stripped)) {
            reader.problem(node, path, "no backend named " + Durations.quote(stripped)
                    + Suggestions.didYouMean(stripped, backends.keySet()));
            return Optional.empty();
        }
        return Optional.of(stripped);
    }

    private boolean serves(String backend, String model) {
        return backends.get(backend).serves(model);
    }

    private String notServed(String backend, String model) {
        return "backend " + Durations.quote(backend) + " does not serve " + Durations.quote(model)
                + " (its models: " + String.join(", ", backends.get(backend).models()) + ")";
    }
}
