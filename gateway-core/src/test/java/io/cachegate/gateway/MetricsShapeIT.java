package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.awaitIndexed;
import static io.cachegate.gateway.CacheCalls.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shape of what the gateway reports, held to golden files taken from the code before a refactoring: the
 * names and labels of the series {@code /metrics} exports after traffic down most request paths
 * ({@code metrics-shape.txt}), and the response header names of each kind of answer with the values of the cache
 * headers and Content-Type ({@code answer-headers.txt}). A refactoring that must not change what operators and
 * clients see keeps both files as they are; a difference fails with the lines missing and the lines extra.
 *
 * <p>The traffic, with fixed prompts on a fresh gateway so every run takes the same paths: exact misses and hits
 * (JSON and streamed), coalesced followers on a slow backend, a semantic miss, a hit (audited) and a near miss,
 * bypasses ({@code no-store}, nondeterministic, sensitive data), refusals (a bad body, an unknown path, key and
 * model), a tenant's 429, an embeddings batch cached per item (miss, partial, hit), a fallback from a backend that
 * is down, the Responses API (JSON and streamed) and a purge (an audit line); admission control is on, the access log
 * and the sampled-requests log are written to files. Answers come 50 ms apart.
 *
 * <p>A series becomes one line {@code name{label=value,...}} with labels sorted, its value not compared; a
 * histogram's {@code le} and a summary's {@code quantile} are dropped (bucket bounds are configuration, not shape).
 * Every other label keeps its value, since none here varies from run to run: policy names, route indices,
 * outcomes, statuses, and the JVM's pool and buffer names, fixed for one JVM. The {@link #EXCLUDED} families are
 * left out. An answer becomes its status and its header names, with the values of the {@link #VALUED} ones.
 *
 * <p>To take the golden files anew (on purpose, from code whose output is right), run this test with
 * {@code -Dcachegate.metricsShape.write=true}: it writes both files under {@code src/test/resources} and passes.
 */
class MetricsShapeIT {

    /** Set to {@code true} to write the golden files from this run instead of comparing. */
    static final String WRITE = "cachegate.metricsShape.write";
    /** Between two answers. */
    private static final Duration PAUSE = Duration.ofMillis(50);
    private static final String SHAPE = "metrics-shape.txt";
    private static final String HEADERS = "answer-headers.txt";
    /** Headers whose values are shape (what the answer is), not identity or timing. */
    private static final Set<String> VALUED = Set.of("x-cache", "x-cache-layer", "content-type", "x-cache-coalesced");
    /**
     * Series families left out of the shape, each because a timing race decides whether it appears at all. Both
     * are registered by the JVM's garbage-collection notifications on the first collection of each kind: which
     * pauses (action, cause) and concurrent phases happen during a run depends on allocation timing, not on
     * the gateway.
     */
    private static final List<String> EXCLUDED = List.of(
            "jvm_gc_pause_seconds", // one series per (action, cause, gc) of the collections that happened
            "jvm_gc_concurrent_phase_time_seconds"); // present only once a concurrent cycle ran
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+.*$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private static final String SEMANTIC_SYSTEM = "You are the shape test's help desk.";
    private static final String PASSWORD = "How do I reset my password?";
    private static final String PASSWORD_PARAPHRASE = "How can I reset my password?";
    private static final String UNRELATED = "Which trains run to the airport on Sundays?";
    private static final String EMBEDDINGS = "/v1/embeddings";
    private static final String RESPONSES = "/v1/responses";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulators(SimulatorOptions.defaults(),
                    // the coalescing backend: 600 ms before the first token keeps the leader in flight
                    SimulatorOptions.defaults().withTtftMs(600))
            .env("DOWN", MetricsShapeIT::closedPort)
            .policy("""
                    backends:
                      - {name: slow, urls: ["${SIM_2}"], model_version: "qwen@1"}
                      - {name: down, urls: ["${DOWN}"], model_version: "llama@v1",
                         timeouts: {connect: 500ms, first_byte: 5s, idle: 5s, total: 30s}}
                    tenants:
                      - {id: acme, api_keys: [acme-key]}
                      - {id: sem, api_keys: [sem-key]}
                      - {id: falls, api_keys: [falls-key]}
                      - {id: limited, api_keys: [limited-key], limits: {requests_per_second: 1, burst: 1}}
                    admission: {enabled: true}
                    prices:
                      "*": {input: 1, output: 2}
                    log:
                      access: file
                      file: "${DIR}/access.log"
                      sample_requests: {rate: 1, file: "${DIR}/sample.log"}
                    cache:
                      exact: {store: memory, ttl: 1h}
                      semantic: {enabled: true, path: "${DIR}", ttl: 1h, max_error_rate: 0, audit: {rate: 1}}
                    routes:
                      - match: {model: "qwen2.5-0.5b"}
                        backend: slow
                      - match: {tenant: falls}
                        backend: down
                        fallbacks: [main]
                      - match: {tenant: sem}
                        cache: {semantic: true}
                      - match: {model: "*"}
                        cache: {exact: true}
                    """);

    /** Kind of answer to its header lines ({@code name} or {@code name=value}). */
    private static final Map<String, SortedSet<String>> answers = new TreeMap<>();

    @BeforeAll
    static void traffic() throws Exception {
        // exact cache, JSON and streamed
        answer("exact_miss_json", chat("acme-key", chatBody("What is a cache?", "")));
        answer("exact_hit_json", chat("acme-key", chatBody("What is a cache?", "")));
        answer("exact_miss_stream", chat("acme-key", chatBody("What is a stream?", "\"stream\":true")));
        answer("exact_hit_stream", chat("acme-key", chatBody("What is a stream?", "\"stream\":true")));
        coalesce();

        // bypasses
        answer("bypass_no_store", chat("acme-key", chatBody("What is a cache?", ""), "Cache-Control", "no-store"));
        answer("bypass_nondeterministic", chat("acme-key",
                "{\"model\":\"llama-3.1-8b\",\"temperature\":1,\"messages\":[{\"role\":\"user\",\"content\":"
                        + "\"Tell me a story.\"}]}"));
        answer("bypass_sensitive", chat("acme-key",
                chatBody("Why was my card 4111 1111 1111 1111 declined yesterday?", "")));

        // refusals
        answer("bad_body_400", RawHttp.post(fixture.port(), CHAT, "{\"model\": ", auth("acme-key")));
        answer("unknown_path_404", RawHttp.post(fixture.port(), "/v1/nothing", "{}", auth("acme-key")));
        answer("unknown_model", RawHttp.post(fixture.port(), CHAT,
                "{\"model\":\"no-such-model\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                auth("acme-key")));
        answer("unknown_key_401", chat("wrong-key", chatBody("What is a cache?", "")));
        quota();

        semantic();
        embeddings();

        // fallback: backend "down" refuses the connection, main answers
        answer("fallback_primary_down", chat("falls-key", chatBody("Who answers when the primary is down?", "")));

        // the Responses API
        String response = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"input\":\"Name a colour.\"}";
        answer("responses_miss_json", RawHttp.post(fixture.port(), RESPONSES, response, auth("acme-key")));
        answer("responses_hit_json", RawHttp.post(fixture.port(), RESPONSES, response, auth("acme-key")));
        String streamed = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"input\":\"Name a fruit.\",\"stream\":true}";
        answer("responses_miss_stream", RawHttp.post(fixture.port(), RESPONSES, streamed, auth("acme-key")));
        answer("responses_hit_stream", RawHttp.post(fixture.port(), RESPONSES, streamed, auth("acme-key")));

        // an admin action: one audit line in the access log
        CacheCalls.purge(fixture.gateway(), "{\"model_version\":\"other@v9\"}");

        // everything in the background has settled before the scrape: write-backs, audits, answers in flight
        awaitIndexed(fixture.gateway());
        assertThat(Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(fixture.gateway(), "cachegate_semantic_verdicts_total") >= 1)).as("the hit audited").isTrue();
        assertThat(Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(fixture.gateway(), "cachegate_requests_inflight") == 0)).as("all answered").isTrue();
    }

    /** Three identical misses at once on the slow backend: one leads, the others follow its call. */
    private static void coalesce() throws InterruptedException {
        String body = "{\"model\":\"qwen2.5-0.5b\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Say it once.\"}]}";
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(RawHttp.CLIENT.sendAsync(request(CHAT, body, auth("acme-key")),
                    HttpResponse.BodyHandlers.ofString()));
        }
        int followers = 0;
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> r = call.join();
            boolean follower = r.headers().firstValue("X-Cache-Coalesced").isPresent();
            followers += follower ? 1 : 0;
            answer(follower ? "coalesced_follower" : "coalesced_leader", r);
        }
        assertThat(followers).as("two followers of one leader").isEqualTo(2);
    }

    /** A tenant allowed one request a second: the next at once is refused (a few tries, for a stalled machine). */
    private static void quota() throws Exception {
        answer("quota_allowed", chat("limited-key", chatBody("Am I within my limit?", "")));
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = chat("limited-key", chatBody("Am I within my limit?", ""));
            if (r.statusCode() == 429) {
                answer("quota_429", r);
                return;
            }
            answer("quota_allowed", r);
        }
        throw new AssertionError("tenant limited was never refused");
    }

    /** A miss written to the index, a paraphrase's hit (audited), and an unrelated question's near miss. */
    private static void semantic() throws Exception {
        answer("semantic_miss", chat("sem-key", semanticBody(PASSWORD)));
        awaitIndexed(fixture.gateway());
        HttpResponse<String> hit = chat("sem-key", semanticBody(PASSWORD_PARAPHRASE));
        assertThat(hit.headers().firstValue("X-Cache-Layer")).as("a semantic hit").contains("semantic");
        answer("semantic_hit", hit);
        answer("semantic_near_miss", chat("sem-key", semanticBody(UNRELATED)));
    }

    /** A batch cached per item: none cached, some cached, all cached; and a single input cached whole. */
    private static void embeddings() throws Exception {
        answer("embeddings_batch_miss", embed("[\"alpha\",\"beta\"]"));
        answer("embeddings_batch_partial", embed("[\"alpha\",\"beta\",\"gamma\"]"));
        answer("embeddings_batch_hit", embed("[\"gamma\",\"alpha\"]"));
        answer("embeddings_single_miss", embed("\"delta\""));
        answer("embeddings_single_hit", embed("\"delta\""));
    }

    private static HttpResponse<String> embed(String input) throws Exception {
        return RawHttp.post(fixture.port(), EMBEDDINGS, "{\"model\":\"llama-3.1-8b\",\"input\":" + input + "}",
                auth("acme-key"));
    }

    @Test
    void scrape_hasTheGoldenSeries() throws Exception {
        compare(SHAPE, settledShape());
    }

    @Test
    void answers_haveTheGoldenHeaders() throws Exception {
        SortedSet<String> lines = new TreeSet<>();
        answers.forEach((kind, headers) -> headers.forEach(h -> lines.add(kind + " " + h)));
        compare(HEADERS, lines);
    }

    /**
     * The scrape's shape once two scrapes in a row agree: a background step that reports in two meters (an audit's
     * verdict, then the demotion of the wrong entry) is not caught half-way.
     */
    private static SortedSet<String> settledShape() throws Exception {
        SortedSet<String> last = shape(RawHttp.get(fixture.adminPort(), "/metrics").body());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            Thread.sleep(250);
            SortedSet<String> now = shape(RawHttp.get(fixture.adminPort(), "/metrics").body());
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        throw new AssertionError("the scrape's shape did not settle within 10 s");
    }

    /** The scrape's series as {@code name{label=value,...}} lines, one per series shape. */
    private static SortedSet<String> shape(String scrape) {
        SortedSet<String> lines = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("not a Prometheus sample: " + line);
            }
            String name = m.group(1);
            if (EXCLUDED.stream().anyMatch(name::startsWith)) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    String key = l.group(1);
                    if (!key.equals("le") && !key.equals("quantile")) {
                        labels.put(key, l.group(2));
                    }
                }
            }
            lines.add(name + labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(",", "{", "}")));
        }
        return lines;
    }

    /** Compares {@code actual} with the golden file, or writes it with {@value #WRITE}. */
    private static void compare(String golden, SortedSet<String> actual) throws Exception {
        Path file = Path.of("src/test/resources", golden);
        if (Boolean.getBoolean(WRITE)) {
            Files.writeString(file, String.join("\n", actual) + "\n");
            return;
        }
        SortedSet<String> expected = new TreeSet<>(Files.readAllLines(file, StandardCharsets.UTF_8));
        expected.remove("");
        SortedSet<String> missing = new TreeSet<>(expected);
        missing.removeAll(actual);
        SortedSet<String> extra = new TreeSet<>(actual);
        extra.removeAll(expected);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            fail("%s differs (take it anew with -D%s=true only for a change meant to be seen)%n"
                            + "missing (in the golden file, not in this run):%n  %s%n"
                            + "extra (in this run, not in the golden file):%n  %s",
                    golden, WRITE, String.join("\n  ", missing), String.join("\n  ", extra));
        }
    }

    /** Records the header names of {@code response}, with values for the {@link #VALUED} ones, under {@code kind}. */
    private static void answer(String kind, HttpResponse<String> response) throws InterruptedException {
        Thread.sleep(PAUSE.toMillis()); // spread over time a little, as clients would
        SortedSet<String> lines = answers.computeIfAbsent(kind, k -> new TreeSet<>());
        lines.add("status=" + response.statusCode());
        response.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            lines.add(VALUED.contains(lower) ? lower + "=" + String.join(",", values) : lower);
        });
    }

    private static HttpResponse<String> chat(String key, String body, String... headers) throws Exception {
        String[] all = new String[headers.length + 2];
        System.arraycopy(auth(key), 0, all, 0, 2);
        System.arraycopy(headers, 0, all, 2, headers.length);
        return RawHttp.post(fixture.port(), CHAT, body, all);
    }

    private static HttpRequest request(String path, String body, String... headers) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.port() + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json").headers(headers)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static String[] auth(String key) {
        return new String[] {"Authorization", "Bearer " + key};
    }

    private static String chatBody(String prompt, String extraFields) {
        return CacheCalls.chat(prompt, extraFields);
    }

    private static String semanticBody(String question) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + CacheCalls.quote(SEMANTIC_SYSTEM) + "},{\"role\":\"user\",\"content\":" + CacheCalls.quote(question)
                + "}]}";
    }

    /** A loopback URL nothing listens on: connections are refused at once. */
    private static String closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
