package io.cachegate.cli;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.cachegate.config.AuditSettings;
import io.cachegate.config.CacheSettings;
import io.cachegate.config.LogSettings;
import io.cachegate.config.LogSink;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.Gateway;
import io.cachegate.simulator.AnswerBook;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate demo}: starts the simulator and the gateway on the embedded default policy,
 * replays a small chat workload with repeats through the official OpenAI Java SDK, and prints
 * where the answers came from (X-Cache), the backend calls the cache avoided, and latencies. Each
 * request is also sent straight to the simulator, to check the answers are identical.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a simulator and the gateway (embedded default), replay a workload through the OpenAI Java SDK, print what happened.")
final class DemoCommand implements Callable<Integer> {

    private static final String MODEL = "llama-3.1-8b";
    /** The workload's prompts, each with its topic (the simulator's answer book answers a topic alike). */
    static final String[][] PROMPTS = {
        {"capital", "What is the capital of France?"}, {"hamlet", "Summarise the plot of Hamlet in one sentence."},
        {"reverse", "How do I reverse a list in Python?"}, {"boiling", "What is the boiling point of water at sea level?"},
        {"spanish", "Translate 'good morning' into Spanish."}, {"tcp", "Explain TCP slow start briefly."},
        {"haiku", "Give me a haiku about autumn."}, {"http429", "What does HTTP status 429 mean?"},
    };
    /** Rephrasings of some prompts, sent after them: answered by the semantic cache once it is sure enough. */
    static final String[][] PARAPHRASES = {
        {"capital", "What's the capital of France?"}, {"reverse", "How can I reverse a list in Python?"},
        {"http429", "What does the HTTP status code 429 mean?"}, {"hamlet", "Summarize the plot of Hamlet in one sentence."},
    };

    @Option(names = "--requests", defaultValue = "40", description = "Requests to send (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--ttft-ms", defaultValue = "20", description = "Simulated time to first token (default ${DEFAULT-VALUE}).")
    long ttftMs;

    @Option(names = "--tpot-ms", defaultValue = "1", description = "Simulated time per output token (default ${DEFAULT-VALUE}).")
    double tpotMs;

    @Override
    public Integer call() throws Exception {
        Path index = Files.createTempDirectory("cachegate-demo-index");
        AnswerBook answers = AnswerBook.load(DemoSemantic.writeAnswers(index, PROMPTS, PARAPHRASES));
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(ttftMs).withTpotMs(tpotMs)
                .withAnswers(answers))) {
            Policy policy = demoPolicy(sim.baseUrl().toString(), index);
            Gateway gateway = Gateway.start(policy);
            try {
                System.out.printf("Cachegate demo%n  simulator  %s (time to first token %d ms, %.1f ms per token)%n",
                        sim.baseUrl(), ttftMs, tpotMs);
                System.out.printf("  gateway    http://127.0.0.1:%d/v1  (admin http://127.0.0.1:%d/metrics)%n%n",
                        gateway.port(), gateway.adminPort());
                awaitReady(gateway.adminPort());
                OpenAIClient viaGateway = client("http://127.0.0.1:" + gateway.port() + "/v1");
                run(viaGateway, client(sim.baseUrl() + "/v1"), sim, gateway.adminPort());
                DemoSemantic.run(viaGateway, MODEL, gateway.adminPort(), (c, p) -> {
                    Answer a = send(c, p, false);
                    return new String[] {a.xCache(), a.similarity()};
                });
            } finally {
                gateway.shutdown(Duration.ofSeconds(5));
                deleteTree(index);
            }
        }
        return 0;
    }

    private void run(OpenAIClient viaGateway, OpenAIClient direct, BackendSimulator sim, int adminPort)
            throws InterruptedException {
        List<String> semanticNotes = new ArrayList<>();
        List<Double> directMs = new ArrayList<>();
        List<Double> hitMs = new ArrayList<>();
        List<Double> missMs = new ArrayList<>();
        Map<String, Integer> xCache = new TreeMap<>();
        int identical = 0;
        int paraphrases = 0;
        for (int i = 0; i < requests; i++) {
            // After one round of the prompts, every fifth request is a rephrasing of an earlier prompt.
            boolean rephrased = i >= PROMPTS.length && i % 5 == 4;
            String prompt = rephrased ? PARAPHRASES[paraphrases++ % PARAPHRASES.length][1] : PROMPTS[i % PROMPTS.length][1];
            ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                    .model(MODEL).addUserMessage(prompt)
                    .temperature(0.0).build();
            boolean stream = i % 3 == 2;
            long t0 = System.nanoTime();
            Answer direct1 = send(direct, params, stream);
            long t1 = System.nanoTime();
            Answer proxied = send(viaGateway, params, stream);
            long t2 = System.nanoTime();
            directMs.add((t1 - t0) / 1e6);
            (proxied.xCache().startsWith("HIT") ? hitMs : missMs).add((t2 - t1) / 1e6);
            xCache.merge(proxied.xCache(), 1, Integer::sum);
            if (proxied.text().equals(direct1.text())) {
                identical++;
            } else if (proxied.xCache().equals("HIT (semantic)")) {
                semanticNotes.add(String.format("  \"%s\" answered by meaning with another topic's answer: a wrong hit (similarity %s)",
                        prompt, proxied.similarity()));
            }
            // Semantic entries are written after the answer, in the background: let them land before the next question.
            if (proxied.xCache().equals("MISS")) {
                awaitSemanticWrites(adminPort);
            }
        }
        long gatewayCalls = sim.stats().requests() - requests;
        int hits = xCache.getOrDefault("HIT (exact)", 0) + xCache.getOrDefault("HIT (semantic)", 0);
        System.out.printf("Sent %d chat requests over %d distinct prompts (temperature 0, every third streamed) through the"
                + " OpenAI Java SDK, each also straight to the simulator.%n", requests, Math.min(requests, PROMPTS.length));
        System.out.printf("  answers identical to the direct call: %d of %d (the simulator answers every phrasing of a"
                + " topic alike, as a backend answering by meaning would: a hit by meaning is right when it matches)%n", identical, requests);
        System.out.printf("  X-Cache: %s   hit rate %.0f%%%n", xCache, 100.0 * hits / requests);
        int byMeaning = xCache.getOrDefault("HIT (semantic)", 0);
        System.out.printf("  rephrased questions: %d, answered by meaning: %d%s%n", paraphrases, byMeaning, byMeaning == paraphrases
                ? "" : "; the others went upstream: under the error budget (cache.semantic.max_error_rate, default 0.01)"
                + " a paraphrase of a single cached question is served only when the gateway is 99% sure of it, which"
                + " takes several cached questions agreeing on the answer, or verdicts (\"By meaning\" below)");
        semanticNotes.forEach(System.out::println);
        // Besides one call per miss, the gateway may audit a semantic hit (cache.semantic.audit.rate) in the background.
        long audits = Math.max(0, gatewayCalls - xCache.getOrDefault("MISS", 0));
        System.out.printf("  backend calls made by the gateway: %d%s; calls avoided: %d%n", gatewayCalls,
                audits == 0 ? "" : " (" + audits + " of them audits of semantic hits)", hits);
        System.out.printf("  latency direct to the simulator  p50 %7.2f ms   p90 %7.2f ms%n", pct(directMs, 50), pct(directMs, 90));
        if (!missMs.isEmpty()) {
            System.out.printf("  latency via gateway, MISS         p50 %7.2f ms   p90 %7.2f ms%n", pct(missMs, 50), pct(missMs, 90));
        }
        if (!hitMs.isEmpty()) {
            System.out.printf("  latency via gateway, HIT          p50 %7.2f ms   p90 %7.2f ms%n", pct(hitMs, 50), pct(hitMs, 90));
        }
        System.out.println("  (client-side times of the SDK; `./cachegate bench overhead` measures the gateway itself)");
    }

    /** @param xCache X-Cache, with the layer of a hit: "HIT (exact)", "HIT (semantic)" */
    private record Answer(String text, String xCache, String similarity) {
    }

    private static Answer answer(String text, com.openai.core.http.Headers headers) {
        String xCache = headers.values("x-cache").stream().findFirst().orElse("none");
        String layer = headers.values("x-cache-layer").stream().findFirst().orElse("");
        String similarity = headers.values("x-cache-similarity").stream().findFirst().orElse("");
        return new Answer(text, layer.isEmpty() ? xCache : xCache + " (" + layer + ")", similarity);
    }

    private static Answer send(OpenAIClient client, ChatCompletionCreateParams params, boolean stream) {
        if (!stream) {
            HttpResponseFor<ChatCompletion> response = client.chat().completions().withRawResponse().create(params);
            return answer(response.parse().choices().get(0).message().content().orElse(""), response.headers());
        }
        StringBuilder text = new StringBuilder();
        HttpResponseFor<StreamResponse<ChatCompletionChunk>> response =
                client.chat().completions().withRawResponse().createStreaming(params);
        try (StreamResponse<ChatCompletionChunk> chunks = response.parse()) {
            chunks.stream().forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(text::append)));
        }
        return answer(text.toString(), response.headers());
    }

    /** Waits (at most 5 s) until the gateway reports no semantic index write in progress. */
    static void awaitSemanticWrites(int adminPort) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest metrics = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String body = http.send(metrics, HttpResponse.BodyHandlers.ofString()).body();
                if (body.lines().noneMatch(l -> l.startsWith("cachegate_semantic_writes_pending") && !l.endsWith(" 0.0"))) {
                    return;
                }
            } catch (IOException e) {
                return; // the demo goes on; a later paraphrase may then miss
            }
            Thread.sleep(10);
        }
    }

    /** Caching starts once the gateway has read the backend's model versions, which /ready reports. */
    private static void awaitReady(int adminPort) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ready")).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // the admin listener is up as soon as start() returns; this is only a probe in flight
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the gateway did not become ready within 15 s");
    }

    private static OpenAIClient client(String baseUrl) {
        return OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey("demo-key").maxRetries(0).build();
    }

    /** The embedded default, pointed at the demo's simulator, on free ports so the demo never collides with a running gateway. */
    private static Policy demoPolicy(String backendUrl, Path index) throws Exception {
        Policy base = PolicyLoader.withEnvironment(name ->
                name.equals("CACHEGATE_BACKEND_URL") ? backendUrl : System.getenv(name)).embeddedDefault();
        ServerSettings s = base.server();
        ServerSettings server = new ServerSettings("127.0.0.1", 0, "127.0.0.1", 0, s.maxBodyBytes(), s.maxHeaderBytes(),
                s.adminToken(), s.shutdownGrace(), s.ioThreads(), s.json());
        // The semantic index goes to a fresh temporary directory: the demo leaves nothing in the working directory.
        // The budget serves on its estimate and every semantic hit is audited: a demo's dozen verdicts are far from
        // what the anytime bound needs (DemoSemantic prints the bound beside the hits). No speculative upstream: the
        // simulator answers faster than an embedding, and an answer that arrives first ends the lookup unjudged.
        AuditSettings a = base.cache().semantic().audit();
        CacheSettings cache = new CacheSettings(base.cache().exact(), base.cache().semantic().withPath(index.toString())
                .withBudget(0, new AuditSettings(1, 100, a.answerSimilarity(), a.onWrong()))
                .withSpeculativeUpstream(false),
                base.cache().sensitivePatterns(), base.cache().fleet());
        // No access log: its JSON lines on stdout would drown the demo's report (serve logs them by default).
        LogSettings l = base.log();
        LogSettings log = new LogSettings(LogSink.OFF, l.file(), l.maxFileSize(), l.maxFiles(), l.queueLines(),
                l.includeText(), 0, l.sampleFile());
        return new Policy("embedded default (demo)", server, base.backends(), base.tenants(), base.classes(),
                cache, base.routes(), base.admission(), base.telemetry(), log, base.prices());
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static double pct(List<Double> values, int percentile) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
