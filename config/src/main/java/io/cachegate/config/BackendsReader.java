package io.cachegate.config;

import static io.cachegate.config.BackendKeys.API_KEY;
import static io.cachegate.config.BackendKeys.BACKOFF;
import static io.cachegate.config.BackendKeys.BALANCE;
import static io.cachegate.config.BackendKeys.BLOCK_CHARS;
import static io.cachegate.config.BackendKeys.CONNECT;
import static io.cachegate.config.BackendKeys.EJECT_FOR;
import static io.cachegate.config.BackendKeys.FAILURES_TO_EJECT;
import static io.cachegate.config.BackendKeys.FIRST_BYTE;
import static io.cachegate.config.BackendKeys.HEALTH_PATH;
import static io.cachegate.config.BackendKeys.IDLE;
import static io.cachegate.config.BackendKeys.INTERVAL;
import static io.cachegate.config.BackendKeys.LOAD_FACTOR;
import static io.cachegate.config.BackendKeys.MAX_ATTEMPTS;
import static io.cachegate.config.BackendKeys.MAX_BLOCKS_PER_REPLICA;
import static io.cachegate.config.BackendKeys.MAX_CONCURRENCY;
import static io.cachegate.config.BackendKeys.MAX_CONNECTIONS_PER_URL;
import static io.cachegate.config.BackendKeys.MAX_INFLIGHT_TOKENS;
import static io.cachegate.config.BackendKeys.METRICS;
import static io.cachegate.config.BackendKeys.MODELS;
import static io.cachegate.config.BackendKeys.MODEL_VERSION;
import static io.cachegate.config.BackendKeys.NAME;
import static io.cachegate.config.BackendKeys.TOTAL;
import static io.cachegate.config.BackendKeys.URLS;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code backends} list (keys in {@link BackendKeys}): names unique, at least one URL each, URLs
 * without a path.
 */
final class BackendsReader {

    private BackendsReader() {
    }

    static List<Backend> read(Fields root) {
        Section section = BackendKeys.SECTION;
        List<Node> items = root.items(section.name());
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            root.problem(section.name(), "at least one backend is required");
            return List.of();
        }
        List<Backend> backends = new ArrayList<>();
        Map<String, Integer> lines = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), section.name() + "[" + i + "]", section.names());
            if (fields == null) {
                continue;
            }
            Optional<String> name = fields.get(NAME);
            Integer first = name.map(n -> lines.putIfAbsent(n, fields.line(NAME.name()))).orElse(null);
            if (first != null) {
                fields.problem(NAME.name(), Durations.quote(name.get()) + " is already used by the backend on line "
                        + first);
            }
            int before = root.reader().problemCount();
            Balance balance = fields.get(BALANCE);
            boolean balanceKnown = root.reader().problemCount() == before;
            backends.add(new Backend(
                    name.orElse("?"),
                    urls(fields),
                    fields.get(MODELS),
                    fields.get(MODEL_VERSION),
                    fields.get(MAX_CONCURRENCY),
                    fields.get(MAX_CONNECTIONS_PER_URL),
                    timeouts(fields),
                    fields.get(API_KEY),
                    balance,
                    fields.get(MAX_INFLIGHT_TOKENS),
                    health(fields),
                    fields.get(METRICS),
                    prefixAffinity(fields, balance, balanceKnown),
                    retries(fields)));
        }
        return backends;
    }

    private static List<URI> urls(Fields backend) {
        String key = URLS.name();
        if (!backend.has(key)) {
            backend.problem(key, "at least one URL is required");
            return List.of();
        }
        List<Node> items = backend.items(key);
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            backend.problem(key, "at least one URL is required");
        }
        List<URI> urls = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = backend.path(key) + "[" + i + "]";
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
        Fields timeouts = backend.section(BackendKeys.TIMEOUTS);
        if (timeouts == null) {
            return Timeouts.defaults();
        }
        return new Timeouts(timeouts.get(CONNECT), timeouts.get(FIRST_BYTE), timeouts.get(IDLE), timeouts.get(TOTAL));
    }

    private static HealthSettings health(Fields backend) {
        Fields health = backend.section(BackendKeys.HEALTH);
        if (health == null) {
            return HealthSettings.defaults();
        }
        return new HealthSettings(health.get(HEALTH_PATH), health.get(INTERVAL), health.get(FAILURES_TO_EJECT),
                health.get(EJECT_FOR));
    }

    /**
     * Settings of prefix affinity, which only {@code balance: prefix_affinity} reads; set with another
     * balance they are a mistake (unless the balance itself was wrong, which is reported already).
     */
    private static PrefixAffinitySettings prefixAffinity(Fields backend, Balance balance, boolean balanceKnown) {
        Section section = BackendKeys.PREFIX_AFFINITY;
        Fields affinity = backend.section(section);
        if (affinity == null) {
            return PrefixAffinitySettings.defaults();
        }
        if (backend.has(section.name()) && balanceKnown && balance != Balance.PREFIX_AFFINITY) {
            backend.problem(section.name(), "is only used with balance: prefix_affinity (balance is "
                    + balance.name().toLowerCase(Locale.ROOT) + ")");
        }
        return new PrefixAffinitySettings(affinity.get(BLOCK_CHARS), affinity.get(MAX_BLOCKS_PER_REPLICA),
                affinity.get(LOAD_FACTOR));
    }

    private static RetrySettings retries(Fields backend) {
        Fields retries = backend.section(BackendKeys.RETRIES);
        if (retries == null) {
            return RetrySettings.defaults();
        }
        return new RetrySettings(retries.get(MAX_ATTEMPTS), retries.get(BACKOFF));
    }
}
