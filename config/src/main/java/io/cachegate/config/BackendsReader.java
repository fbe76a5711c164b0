package io.cachegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
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
            "max_connections_per_url", "timeouts", "api_key", "balance", "max_inflight_tokens", "health", "metrics",
            "prefix_affinity", "retries");
    private static final Set<String> TIMEOUT_KEYS = Set.of("connect", "first_byte", "idle", "total");
    private static final Set<String> HEALTH_KEYS = Set.of("path", "interval", "failures_to_eject", "eject_for");
    private static final Set<String> AFFINITY_KEYS = Set.of("block_chars", "max_blocks_per_replica", "load_factor");
    private static final Set<String> RETRY_KEYS = Set.of("max_attempts", "backoff");

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
            int before = root.reader().problemCount();
            Balance balance = fields.choice("balance", Balance.LEAST_LOADED, true);
            boolean balanceKnown = root.reader().problemCount() == before;
            backends.add(new Backend(
                    name.orElse("?"),
                    urls(fields),
                    fields.strings("models", List.of("*")),
                    fields.optional("model_version"),
                    (int) fields.integer("max_concurrency", Backend.DEFAULT_MAX_CONCURRENCY, 1, 1_000_000),
                    (int) fields.integer("max_connections_per_url", 64, 1, 1_000_000),
                    timeouts(fields),
                    fields.optional("api_key"),
                    balance,
                    fields.integer("max_inflight_tokens", Backend.DEFAULT_MAX_INFLIGHT_TOKENS, 1,
                            1_000_000_000_000L),
                    health(fields),
                    fields.bool("metrics", false),
                    prefixAffinity(fields, balance, balanceKnown),
                    retries(fields)));
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

    private static HealthSettings health(Fields backend) {
        HealthSettings d = HealthSettings.defaults();
        Fields health = backend.section("health", HEALTH_KEYS);
        if (health == null) {
            return d;
        }
        String path = health.string("path", d.path()).strip();
        if (!path.startsWith("/") || path.chars().anyMatch(Character::isWhitespace) || path.contains("?")
                || path.contains("#")) {
            health.problem("path", Durations.quote(path) + " is not an absolute path without a query"
                    + " (e.g. /v1/models or /health)");
            path = d.path();
        }
        return new HealthSettings(
                path,
                health.duration("interval", d.interval(), Duration.ofMillis(100), Duration.ofHours(1)),
                (int) health.integer("failures_to_eject", d.failuresToEject(), 1, 1000),
                health.duration("eject_for", d.ejectFor(), Duration.ofMillis(100), Duration.ofHours(1)));
    }

    /**
     * Settings of prefix affinity, which only {@code balance: prefix_affinity} reads; set with another
     * balance they are a mistake (unless the balance itself was wrong, which is reported already).
     */
    private static PrefixAffinitySettings prefixAffinity(Fields backend, Balance balance, boolean balanceKnown) {
        PrefixAffinitySettings d = PrefixAffinitySettings.defaults();
        Fields affinity = backend.section("prefix_affinity", AFFINITY_KEYS);
        if (affinity == null) {
            return d;
        }
        if (backend.has("prefix_affinity") && balanceKnown && balance != Balance.PREFIX_AFFINITY) {
            backend.problem("prefix_affinity", "is only used with balance: prefix_affinity (balance is "
                    + balance.name().toLowerCase(Locale.ROOT) + ")");
        }
        int blockChars = (int) affinity.integer("block_chars", d.blockChars(), 1, 1_000_000);
        int maxBlocks = (int) affinity.integer("max_blocks_per_replica", d.maxBlocksPerReplica(), 1, 100_000_000);
        double loadFactor = affinity.decimal("load_factor", d.loadFactor());
        if (!(loadFactor >= 1 && loadFactor <= 1000)) {
            affinity.problem("load_factor", loadFactor + " is out of range 1..1000 (the replica holding the prefix"
                    + " is passed over when its load is above this many times the others' mean)");
            loadFactor = d.loadFactor();
        }
        return new PrefixAffinitySettings(blockChars, maxBlocks, loadFactor);
    }

    private static RetrySettings retries(Fields backend) {
        RetrySettings d = RetrySettings.defaults();
        Fields retries = backend.section("retries", RETRY_KEYS);
        if (retries == null) {
            return d;
        }
        return new RetrySettings(
                (int) retries.integer("max_attempts", d.maxAttempts(), 1, 10),
                retries.duration("backoff", d.backoff(), Duration.ZERO, Duration.ofSeconds(10)));
    }
}
