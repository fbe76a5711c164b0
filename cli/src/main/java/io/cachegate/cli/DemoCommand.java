package io.cachegate.cli;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.Gateway;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate demo}: starts the simulator and the gateway on the embedded default policy,
 * replays a small chat workload through the official OpenAI Java SDK, and prints where each answer
 * came from and what the gateway cost in latency (each request is also sent straight to the
 * simulator, so the difference is measured pairwise).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a simulator and the gateway (embedded default), replay a workload through the OpenAI Java SDK, print what happened.")
final class DemoCommand implements Callable<Integer> {

    private static final String MODEL = "llama-3.1-8b";
    private static final String[] PROMPTS = {
        "What is the capital of France?", "Summarise the plot of Hamlet in one sentence.",
        "How do I reverse a list in Python?", "What is the boiling point of water at sea level?",
        "Translate 'good morning' into Spanish.", "Explain TCP slow start briefly.",
        "Give me a haiku about autumn.", "What does HTTP status 429 mean?",
    };

    @Option(names = "--requests", defaultValue = "40", description = "Requests to send (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--ttft-ms", defaultValue = "20", description = "Simulated time to first token (default ${DEFAULT-VALUE}).")
    long ttftMs;

    @Option(names = "--tpot-ms", defaultValue = "1", description = "Simulated time per output token (default ${DEFAULT-VALUE}).")
    double tpotMs;

    @Override
    public Integer call() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(ttftMs).withTpotMs(tpotMs))) {
            Policy policy = demoPolicy(sim.baseUrl().toString());
            Gateway gateway = Gateway.start(policy);
            try {
                System.out.printf("Cachegate demo%n  simulator  %s (time to first token %d ms, %.1f ms per token)%n",
                        sim.baseUrl(), ttftMs, tpotMs);
                System.out.printf("  gateway    http://127.0.0.1:%d/v1  (admin http://127.0.0.1:%d/metrics)%n%n",
                        gateway.port(), gateway.adminPort());
                run(client("http://127.0.0.1:" + gateway.port() + "/v1"), client(sim.baseUrl() + "/v1"), sim);
            } finally {
                gateway.shutdown(Duration.ofSeconds(5));
            }
        }
        return 0;
    }

    private void run(OpenAIClient viaGateway, OpenAIClient direct, BackendSimulator sim) {
        List<Double> gatewayMs = new ArrayList<>();
        List<Double> directMs = new ArrayList<>();
        List<Double> addedMs = new ArrayList<>();
        Map<String, Integer> xCache = new TreeMap<>();
        int identical = 0;
        for (int i = 0; i < requests; i++) {
            ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                    .model(MODEL).addUserMessage(PROMPTS[i % PROMPTS.length])
                    .temperature(0.0).maxCompletionTokens(24L).build();
            boolean stream = i % 3 == 2;
            long t0 = System.nanoTime();
            Answer direct1 = send(direct, params, stream);
            long t1 = System.nanoTime();
            Answer proxied = send(viaGateway, params, stream);
            long t2 = System.nanoTime();
            double d = (t1 - t0) / 1e6;
            double g = (t2 - t1) / 1e6;
            directMs.add(d);
            gatewayMs.add(g);
            addedMs.add(g - d);
            xCache.merge(proxied.xCache(), 1, Integer::sum);
            if (proxied.text().equals(direct1.text())) {
                identical++;
            }
        }
        System.out.printf("Sent %d chat requests (every third streamed) through the OpenAI Java SDK, each also straight to the simulator.%n",
                requests);
        System.out.printf("  answers identical to the direct call: %d of %d%n", identical, requests);
        System.out.printf("  X-Cache: %s%n", xCache);
        System.out.printf("  backend calls: %d (%d through the gateway, %d direct); calls avoided by caching: 0 (caching comes in a later release)%n",
                sim.stats().requests(), requests, requests);
        System.out.printf("  latency direct       p50 %7.2f ms   p90 %7.2f ms%n", pct(directMs, 50), pct(directMs, 90));
        System.out.printf("  latency via gateway  p50 %7.2f ms   p90 %7.2f ms%n", pct(gatewayMs, 50), pct(gatewayMs, 90));
        System.out.printf("  added by the gateway p50 %7.2f ms   (pairwise, includes client and JVM warm-up noise;"
                + " see `./cachegate bench overhead` for a measured figure)%n", pct(addedMs, 50));
    }

    private record Answer(String text, String xCache) {
    }

    private static Answer send(OpenAIClient client, ChatCompletionCreateParams params, boolean stream) {
        if (!stream) {
            HttpResponseFor<ChatCompletion> response = client.chat().completions().withRawResponse().create(params);
            String xCache = response.headers().values("x-cache").stream().findFirst().orElse("none");
            String text = response.parse().choices().get(0).message().content().orElse("");
            return new Answer(text, xCache);
        }
        StringBuilder text = new StringBuilder();
        HttpResponseFor<StreamResponse<ChatCompletionChunk>> response =
                client.chat().completions().withRawResponse().createStreaming(params);
        String xCache = response.headers().values("x-cache").stream().findFirst().orElse("none");
        try (StreamResponse<ChatCompletionChunk> chunks = response.parse()) {
            chunks.stream().forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(text::append)));
        }
        return new Answer(text.toString(), xCache);
    }

    private static OpenAIClient client(String baseUrl) {
        return OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey("demo-key").maxRetries(0).build();
    }

    /** The embedded default, pointed at the demo's simulator, on free ports so the demo never collides with a running gateway. */
    private static Policy demoPolicy(String backendUrl) throws Exception {
        Policy base = PolicyLoader.withEnvironment(name ->
                name.equals("CACHEGATE_BACKEND_URL") ? backendUrl : System.getenv(name)).embeddedDefault();
        ServerSettings s = base.server();
        ServerSettings server = new ServerSettings("127.0.0.1", 0, "127.0.0.1", 0, s.maxBodyBytes(), s.maxHeaderBytes(),
                s.adminToken(), s.shutdownGrace(), s.ioThreads(), s.json());
        return new Policy("embedded default (demo)", server, base.backends(), base.tenants(), base.classes(),
                base.cache(), base.routes());
    }

    private static double pct(List<Double> values, int percentile) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
