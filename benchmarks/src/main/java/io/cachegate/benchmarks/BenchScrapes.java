package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the benchmarks read from their children while they run: a Prometheus page's gauges and
 * cache lookups, the simulator's {@code /sim/stats}, and a process's resident memory from
 * {@code /proc}. The parsing is pure, for the tests; {@link #get} does the one HTTP call.
 */
final class BenchScrapes {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+)");
    private static final Pattern LOOKUPS = Pattern.compile("(?m)^cachegate_cache_lookups_total\\{([^}]*)}\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private BenchScrapes() {
    }

    /** One replica's {@code GET /sim/stats}; the prefix counters are 0 when its prefix cache is off. */
    record SimStats(long requests, long completed, long cancelled, long errors, int active, int queued,
                    long prefixBlocksQueried, long prefixBlocksHit, long prefixHitRequests) {

        static SimStats parse(String json) {
            try {
                JsonNode n = BenchJson.mapper().readTree(json);
                if (n == null || !n.has("requests")) {
                    throw new IllegalArgumentException("not a /sim/stats answer: " + json);
                }
                return new SimStats(n.path("requests").asLong(), n.path("completed").asLong(),
                        n.path("cancelled").asLong(), n.path("errors").asLong(), n.path("active").asInt(),
                        n.path("queued").asInt(), n.path("prefix_blocks_queried").asLong(),
                        n.path("prefix_blocks_hit").asLong(), n.path("prefix_hit_requests").asLong());
            } catch (IOException e) {
                throw new IllegalArgumentException("not a /sim/stats answer: " + json, e);
            }
        }

        boolean idle() {
            return active == 0 && queued == 0;
        }
    }

    static SimStats simStats(HttpClient http, URI replica) throws IOException, InterruptedException {
        return SimStats.parse(get(http, replica.resolve("/sim/stats")));
    }

    /**
     * The sum of the samples of {@code name} whose label set contains every one of {@code labels} (e.g.
     * {@code class="batch"}; none matches every sample), NaN when there is none.
     */
    static double metric(String page, String name, String... labels) {
        double sum = 0;
        boolean found = false;
        Matcher m = SAMPLE.matcher(page);
        while (m.find()) {
            if (!m.group(1).equals(name)) {
                continue;
            }
            String set = m.group(2) == null ? "" : m.group(2);
            boolean all = true;
            for (String label : labels) {
                all &= set.contains(label);
            }
            if (!all) {
                continue;
            }
            sum += Double.parseDouble(m.group(3));
            found = true;
        }
        return found ? sum : Double.NaN;
    }

    /** A {@code kB} field of a {@code /proc/<pid>/status} text, in KiB; -1 when absent. */
    static long statusKib(String status, String field) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(field) + ":\\s+(\\d+)\\s+kB").matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The resident set of process {@code pid} in KiB, -1 when it cannot be read (not Linux, process gone). */
    static long rssKib(long pid) {
        try {
            return statusKib(Files.readString(Path.of("/proc", Long.toString(pid), "status"),
                    StandardCharsets.UTF_8), "VmRSS");
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    /** {@code cachegate_cache_lookups_total} of a gateway's {@code /metrics} page by "layer/outcome". */
    static Map<String, Long> lookups(String page) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = LOOKUPS.matcher(page);
        while (m.find()) {
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(1));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            out.merge(labels.getOrDefault("layer", "?") + "/" + labels.getOrDefault("outcome", "?"),
                    (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return out;
    }

    /** {@link #lookups} summed over the layers: by outcome alone. */
    static Map<String, Long> lookupsByOutcome(String page) {
        Map<String, Long> out = new LinkedHashMap<>();
        lookups(page).forEach((k, v) -> out.merge(k.substring(k.indexOf('/') + 1), v, Long::sum));
        return out;
    }

    /** Where a simulator replica started with {@code --kv-events} publishes its KV-cache events. */
    static String kvEventsEndpoint(HttpClient http, URI replica) throws IOException, InterruptedException {
        JsonNode stats = BenchJson.mapper().readTree(get(http, replica.resolve("/sim/stats")));
        String endpoint = stats.path("kv_events_endpoint").asText("");
        if (endpoint.isEmpty()) {
            throw new IOException(replica + " publishes no KV-cache events (no kv_events_endpoint in /sim/stats)");
        }
        return endpoint;
    }

    /** The KV blocks a simulator replica started with {@code --kv-events} holds now. */
    static long kvBlocks(HttpClient http, URI replica) throws IOException, InterruptedException {
        return BenchJson.mapper().readTree(get(http, replica.resolve("/sim/stats"))).path("kv_blocks").asLong();
    }

    /** An HTTP/1.1 client for the scrapes, connecting within 5 s. */
    static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** {@code GET uri}, expecting 200; the body. */
    static String get(HttpClient http, URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + uri + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }
}
