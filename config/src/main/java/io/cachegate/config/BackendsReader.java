package io.cachegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code backends} list: names unique, at least one URL each, URLs without a path. */
final class BackendsReader {

    private static final Set<String> KEYS = Set.of("name", "urls", "models", "model_version", "max_concurrency",
            "max_connections_per_url", "timeouts", "api_key");
    private static final Set<String> TIMEOUT_KEYS = Set.of("connect", "first_byte", "idle", "total");

    private BackendsReader() {
    }

    static List<Backend> read(Fields root) {
        List<Node> items = root.items("backends");
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            root.problem("backends", "at least one backend is required");
            return List.of();
        }
        List<Backend> backends = new ArrayList<>();
        Map<String, Integer> lines = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), "backends[" + i + "]", KEYS);
            if (fields == null) {
                continue;
            }
            Optional<String> name = fields.required("name");
            Integer first = name.map(n -> lines.putIfAbsent(n, fields.line("name"))).orElse(null);
            if (first != null) {
                fields.problem("name", Durations.quote(name.get()) + " is already used by the backend on line " + first);
            }
            backends.add(new Backend(
                    name.orElse("?"),
                    urls(fields),
                    fields.strings("models", List.of("*")),
                    fields.optional("model_version"),
                    (int) fields.integer("max_concurrency", 64, 1, 1_000_000),
                    (int) fields.integer("max_connections_per_url", 64, 1, 1_000_000),
                    timeouts(fields),
                    fields.optional("api_key")));
        }
        return backends;
    }

    private static List<URI> urls(Fields backend) {
        if (!backend.has("urls")) {
            backend.problem("urls", "at least one URL is required");
            return List.of();
        }
        List<Node> items = backend.items("urls");
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            backend.problem("urls", "at least one URL is required");
        }
        List<URI> urls = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = backend.path("urls") + "[" + i + "]";
            String text = backend.reader().text(items.get(i), path);
            if (text != null) {
                String problem = check(text.strip());
                if (problem == null) {
                    urls.add(normalise(URI.create(text.strip())));
                } else {
                    backend.reader().problem(items.get(i), path, Durations.quote(text) + " " + problem);
                }
            }
        }
        return urls;
    }

    /** Why the URL is not usable as a backend base URL, or null when it is. */
    private static String check(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            return "is not a URL (e.g. http://127.0.0.1:8000)";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return "is not an http or https URL (e.g. http://127.0.0.1:8000)";
        }
        if (uri.getHost() == null) {
            return "has no host";
        }
        // The gateway appends the request path (/v1/...) itself; a base path would be silently dropped.
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            return "must not have a path (the gateway appends /v1/...)";
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            return "must not have a query or fragment";
        }
        return null;
    }

    /** Drops the trailing slash so {@code url + "/v1/chat/completions"} is always well formed. */
    private static URI normalise(URI uri) {
        String text = uri.toString();
        return text.endsWith("/") ? URI.create(text.substring(0, text.length() - 1)) : uri;
    }

    private static Timeouts timeouts(Fields backend) {
        Timeouts d = Timeouts.defaults();
        Fields timeouts = backend.section("timeouts", TIMEOUT_KEYS);
        if (timeouts == null) {
            return d;
        }
        return new Timeouts(
                timeouts.duration("connect", d.connect()),
                timeouts.duration("first_byte", d.firstByte()),
                timeouts.duration("idle", d.idle()),
                timeouts.duration("total", d.total()));
    }
}
