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
                    retries(fields),
                    kvEvents(fields, balance, balanceKnown)));
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
        return baseUrls(backend, key, items, "/v1/...");
    }

    /** The items of {@code key} checked as base URLs, to which the gateway appends {@code appended}. */
    private static List<URI> baseUrls(Fields backend, String key, List<Node> items, String appended) {
        List<URI> urls = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = backend.path(key) + "[" + i + "]";
            String text = backend.reader().text(items.get(i), path);
            if (text != null) {
                String problem = check(text.strip());
                if (problem == null) {
                    urls.add(normalise(URI.create(text.strip())));
                } else {
                    backend.reader().problem(items.get(i), path, Durations.quote(text) + " "
                            + problem.replace("/v1/...", appended));
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
        if (backend.has(section.name()) && balanceKnown && balance != Balance.PREFIX_AFFINITY
                && balance != Balance.KV_AWARE) {
            backend.problem(section.name(), "is only used with balance: prefix_affinity or kv_aware (balance is "
                    + balance.name().toLowerCase(Locale.ROOT) + ")");
        }
        return new PrefixAffinitySettings(affinity.get(BLOCK_CHARS), affinity.get(MAX_BLOCKS_PER_REPLICA),
                affinity.get(LOAD_FACTOR));
    }

    /**
     * The replicas' KV-cache event endpoints and what matching against them needs; only {@code balance: kv_aware}
     * reads them, so with another balance they are a mistake. One endpoint per URL, in the URLs' order.
     */
    private static KvEventsSettings kvEvents(Fields backend, Balance balance, boolean balanceKnown) {
        List<String> publish = endpoints(backend, BackendKeys.KV_EVENTS.name(), false);
        List<String> replayGiven = endpoints(backend, BackendKeys.KV_REPLAY.name(), true);
        Fields section = backend.section(BackendKeys.KV_AWARE);
        List<URI> siblings = siblings(backend);
        boolean any = !publish.isEmpty() || backend.has(BackendKeys.KV_REPLAY.name())
                || backend.has(BackendKeys.KV_SIBLINGS.name())
                || backend.has(BackendKeys.TOKENIZER.name()) || backend.has(BackendKeys.CHAT_TEMPLATE.name())
                || backend.has(BackendKeys.KV_AWARE.name());
        if (any && balanceKnown && balance != Balance.KV_AWARE) {
            backend.problem(BackendKeys.KV_EVENTS.name(), "kv_events, kv_replay, kv_siblings, tokenizer,"
                    + " chat_template and kv_aware are only used with balance: kv_aware (balance is "
                    + balance.name().toLowerCase(Locale.ROOT) + ")");
        }
        List<Node> urlItems = backend.has(URLS.name()) ? backend.items(URLS.name()) : null;
        int urls = urlItems == null ? 0 : urlItems.size();
        if (!publish.isEmpty() && publish.size() != urls) {
            backend.problem(BackendKeys.KV_EVENTS.name(), "has " + publish.size() + " endpoints for " + urls
                    + " urls: give one per url, in the same order");
        }
        if (backend.has(BackendKeys.KV_REPLAY.name()) && replayGiven.size() != publish.size()) {
            backend.problem(BackendKeys.KV_REPLAY.name(), "has " + replayGiven.size() + " entries for "
                    + publish.size() + " kv_events endpoints: give one per endpoint (none for none)");
        }
        List<Optional<String>> replay = new ArrayList<>();
        for (int i = 0; i < publish.size(); i++) {
            if (i < replayGiven.size()) {
                replay.add(replayGiven.get(i).equals("none") ? Optional.empty() : Optional.of(replayGiven.get(i)));
            } else {
                replay.add(nextPort(publish.get(i)));
            }
        }
        return new KvEventsSettings(publish, replay, backend.get(BackendKeys.TOKENIZER),
                backend.get(BackendKeys.CHAT_TEMPLATE),
                section == null ? BackendKeys.KV_CPU_WEIGHT.fallback() : section.get(BackendKeys.KV_CPU_WEIGHT),
                section == null ? BackendKeys.KV_MAX_BLOCKS_PER_REPLICA.fallback()
                        : section.get(BackendKeys.KV_MAX_BLOCKS_PER_REPLICA),
                siblings);
    }

    /** Sibling gateways' admin base URLs ({@code http(s)://host:port}, no path). */
    private static List<URI> siblings(Fields backend) {
        String key = BackendKeys.KV_SIBLINGS.name();
        List<Node> items = backend.has(key) ? backend.items(key) : null;
        return items == null ? List.of() : baseUrls(backend, key, items, "/admin/kv-index");
    }

    /** A list of ZeroMQ endpoints ({@code tcp://host:port}), or {@code none} where allowed. */
    private static List<String> endpoints(Fields backend, String key, boolean noneAllowed) {
        if (!backend.has(key)) {
            return List.of();
        }
        List<Node> items = backend.items(key);
        if (items == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = backend.path(key) + "[" + i + "]";
            String text = backend.reader().text(items.get(i), path);
            if (text == null) {
                continue;
            }
            String t = text.strip();
            if (noneAllowed && t.equals("none") || t.matches("tcp://[^\\s/:]+:\\d{1,5}")) {
                out.add(t);
            } else {
                backend.reader().problem(items.get(i), path, Durations.quote(text)
                        + " is not a ZeroMQ TCP endpoint (e.g. tcp://10.0.0.5:5557)" + (noneAllowed ? " or none" : ""));
            }
        }
        return out;
    }

    /** The replay endpoint by convention: the publish port + 1 (as {@code simulate-backend --kv-events} binds). */
    private static Optional<String> nextPort(String publish) {
        int colon = publish.lastIndexOf(':');
        int port = Integer.parseInt(publish.substring(colon + 1));
        return port >= 65535 ? Optional.empty() : Optional.of(publish.substring(0, colon + 1) + (port + 1));
    }

    private static RetrySettings retries(Fields backend) {
        Fields retries = backend.section(BackendKeys.RETRIES);
        if (retries == null) {
            return RetrySettings.defaults();
        }
        return new RetrySettings(retries.get(MAX_ATTEMPTS), retries.get(BACKOFF));
    }
}
