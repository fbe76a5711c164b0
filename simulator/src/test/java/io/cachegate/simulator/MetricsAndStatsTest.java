package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.awaitStats;
import static io.cachegate.simulator.TestHttp.get;
import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.postAsync;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsAndStatsTest {

    private static final String CHAT = "/v1/chat/completions";
    private static final String LONG_SYSTEM = "Answer in one short sentence, politely. ".repeat(16); // 640 chars

    private BackendSimulator sim;

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    private static String chat(String question, int maxTokens) {
        return "{\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"system\",\"content\":\"" + LONG_SYSTEM
                + "\"},{\"role\":\"user\",\"content\":\"" + question + "\"}]}";
    }

    /** Samples of a Prometheus text body, by series (name and labels). */
    private static Map<String, Double> samples(String body) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return out;
    }

    @Test
    void metrics_prometheusTextWithVllmNamesAndModelLabel() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withPrefixCacheBlocks(10).withPrefixBlockChars(128));
        post(sim, CHAT, chat("first?", 2));
        post(sim, CHAT, chat("second?", 2));

        HttpResponse<String> response = get(sim, "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body())
                .contains("# TYPE vllm:num_requests_running gauge\n")
                .contains("# TYPE vllm:num_requests_waiting gauge\n")
                .contains("# TYPE vllm:kv_cache_usage_perc gauge\n")
                .contains("# TYPE vllm:prefix_cache_queries_total counter\n")
                .contains("# TYPE vllm:prefix_cache_hits_total counter\n")
                .endsWith("\n");
        for (String line : response.body().split("\n")) {
            assertThat(line).matches("# (HELP|TYPE) vllm:[a-z_]+ .+|vllm:[a-z_]+\\{model_name=\"llama-3\\.1-8b\"} [0-9.E-]+");
        }
        Map<String, Double> samples = samples(response.body());
        String label = "{model_name=\"llama-3.1-8b\"}";
        // 660 prompt characters in 128-character blocks: 5 full blocks, all in the shared system message.
        assertThat(samples).containsEntry("vllm:num_requests_running" + label, 0.0)
                .containsEntry("vllm:num_requests_waiting" + label, 0.0)
                .containsEntry("vllm:prefix_cache_queries_total" + label, 10.0)
                .containsEntry("vllm:prefix_cache_hits_total" + label, 5.0)
                .containsEntry("vllm:kv_cache_usage_perc" + label, 0.5); // 5 distinct blocks of 10
    }

    @Test
    void metrics_withoutPrefixCache_usageIsRunningOverSlotsAndQueueIsWaiting() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withMaxConcurrency(2).withTpotMs(20));
        CompletableFuture<HttpResponse<String>> a = postAsync(sim, CHAT, chat("a", 30));
        CompletableFuture<HttpResponse<String>> b = postAsync(sim, CHAT, chat("b", 30));
        awaitStats(sim, s -> s.active() == 2);
        CompletableFuture<HttpResponse<String>> c = postAsync(sim, CHAT, chat("c", 30));
        awaitStats(sim, s -> s.queued() == 1);

        Map<String, Double> samples = samples(get(sim, "/metrics").body());

        String label = "{model_name=\"llama-3.1-8b\"}";
        assertThat(samples).containsEntry("vllm:num_requests_running" + label, 2.0)
                .containsEntry("vllm:num_requests_waiting" + label, 1.0)
                .containsEntry("vllm:kv_cache_usage_perc" + label, 1.0)
                .containsEntry("vllm:prefix_cache_queries_total" + label, 0.0);
        assertThat(a.join().statusCode()).isEqualTo(200);
        assertThat(b.join().statusCode()).isEqualTo(200);
        assertThat(c.join().statusCode()).isEqualTo(200);
    }

    @Test
    void metrics_wrongMethod_returns405() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());

        assertThat(post(sim, "/metrics", "{}").statusCode()).isEqualTo(405);
    }

    @Test
    void simStats_withPrefixCache_addsPrefixCounters() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withPrefixCacheBlocks(100).withPrefixBlockChars(128));
        post(sim, CHAT, chat("one", 1));
        post(sim, "/v1/completions", "{\"prompt\":\"" + LONG_SYSTEM + "\",\"max_tokens\":1}"); // its own chain
        post(sim, CHAT, chat("two", 1));

        JsonNode stats = json(get(sim, "/sim/stats").body());

        assertThat(stats.fieldNames()).toIterable().containsExactly("requests", "completed", "cancelled", "errors",
                "hung", "active", "queued", "prefix_blocks_queried", "prefix_blocks_hit", "prefix_hit_requests",
                "prefix_wait_requests", "prefix_blocks_cached", "prefix_cache_blocks");
        assertThat(stats.get("prefix_blocks_queried").asLong()).isEqualTo(5 + 5 + 5);
        assertThat(stats.get("prefix_blocks_hit").asLong()).isEqualTo(5);
        assertThat(stats.get("prefix_hit_requests").asLong()).isEqualTo(1);
        assertThat(stats.get("prefix_wait_requests").asLong()).as("one at a time: none found a prefill running").isZero();
        assertThat(stats.get("prefix_blocks_cached").asLong()).isEqualTo(10);
        assertThat(stats.get("prefix_cache_blocks").asLong()).isEqualTo(100);
        assertThat(sim.stats().prefixHitRate()).isEqualTo(5.0 / 15);
    }

    @Test
    void simStats_prefixCacheOff_keepsTheOriginalFields() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        post(sim, CHAT, chat("one", 1));

        assertThat(json(get(sim, "/sim/stats").body()).fieldNames()).toIterable()
                .containsExactly("requests", "completed", "cancelled", "errors", "hung", "active", "queued");
    }
}
