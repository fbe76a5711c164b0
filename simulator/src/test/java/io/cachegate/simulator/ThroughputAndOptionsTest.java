package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.postAsync;
import static io.cachegate.simulator.TestHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ThroughputAndOptionsTest {

    private static final String CHAT = "/v1/chat/completions";

    private BackendSimulator sim;

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    private static String chat(int maxTokens, boolean stream) {
        return "{\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    @Test
    void tokensPerSecond_sharedByConcurrentRequests_slowsEachToItsShare() {
        // 100 tokens/s shared by two sequences: at least 20 ms a token each, so 11 tokens take >= 200 ms.
        sim = BackendSimulator.start(SimulatorOptions.defaults().withTokensPerSecond(100));
        long started = System.nanoTime();

        CompletableFuture<HttpResponse<String>> whole = postAsync(sim, CHAT, chat(11, false));
        CompletableFuture<HttpResponse<String>> streamed = postAsync(sim, CHAT, chat(11, true));

        HttpResponse<String> a = whole.join();
        HttpResponse<String> b = streamed.join();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(json(a.body()).get("usage").get("completion_tokens").asInt()).isEqualTo(11);
        List<String> events = sseData(b.body());
        assertThat(events).hasSize(1 + 11 + 1); // role chunk, 11 tokens, [DONE]
        assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
        // The slots are freed just after the answers are counted: the wait times out if one is never freed.
        TestHttp.awaitStats(sim, s -> s.completed() == 2 && s.active() == 0);
    }

    @Test
    void tokensPerSecond_alone_isLowerBoundedByTheRate() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withTokensPerSecond(50)); // 20 ms a token
        long started = System.nanoTime();

        HttpResponse<String> response = post(sim, CHAT, chat(6, false));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void sharedPrefill_twoPromptsAtOnce_theSecondAnswersAfterBothPrefills() {
        // 1 ms a prompt token, ~100 tokens a prompt: each prefill ~100 ms; shared, the two end one after the other.
        String prompt = "word ".repeat(100);
        sim = BackendSimulator.start(SimulatorOptions.defaults().withPrefillMsPerToken(1).withSharedPrefill(true));
        long started = System.nanoTime();

        CompletableFuture<HttpResponse<String>> first = postAsync(sim, CHAT, "{\"max_tokens\":1,\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");
        CompletableFuture<HttpResponse<String>> second = postAsync(sim, CHAT, "{\"max_tokens\":1,\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"" + prompt + "again\"}]}");

        int tokens = json(first.join().body()).get("usage").get("prompt_tokens").asInt()
                + json(second.join().body()).get("usage").get("prompt_tokens").asInt();
        assertThat(tokens).isGreaterThanOrEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("both prefills, one after the other")
                .isGreaterThanOrEqualTo(Duration.ofMillis(tokens));
    }

    @Test
    void options_legacyConstructor_keepsNewFeaturesOff() {
        SimulatorOptions legacy = new SimulatorOptions("127.0.0.1", 0, 1, 2, 3, 4, 5, 0, 0, 6, List.of("m"), 7);

        assertThat(legacy.tokensPerSecond()).isZero();
        assertThat(legacy.prefixCacheBlocks()).isZero();
        assertThat(legacy.prefixCacheEnabled()).isFalse();
        assertThat(legacy.prefixBlockChars()).isEqualTo(SimulatorOptions.DEFAULT_PREFIX_BLOCK_CHARS);
        assertThat(SimulatorOptions.defaults().prefixCacheEnabled()).isFalse();
        assertThat(legacy.sharedPrefill()).isFalse();
        assertThat(SimulatorOptions.defaults().sharedPrefill()).isFalse();
        assertThat(SimulatorOptions.defaults().withSharedPrefill(true).withSeed(3).sharedPrefill()).isTrue();
    }

    @Test
    void options_withers_keepTheOtherFields() {
        SimulatorOptions options = SimulatorOptions.defaults().withPrefixCacheBlocks(10).withPrefixBlockChars(64)
                .withTokensPerSecond(500).withTtftMs(5).withSeed(9);

        assertThat(options.prefixCacheBlocks()).isEqualTo(10);
        assertThat(options.prefixBlockChars()).isEqualTo(64);
        assertThat(options.tokensPerSecond()).isEqualTo(500);
        assertThat(options.ttftMs()).isEqualTo(5);
        assertThat(options.seed()).isEqualTo(9);
    }

    @Test
    void options_invalidNewFields_areRejectedByName() {
        SimulatorOptions d = SimulatorOptions.defaults();

        assertThatThrownBy(() -> d.withTokensPerSecond(-1)).hasMessageContaining("tokensPerSecond");
        assertThatThrownBy(() -> d.withTokensPerSecond(Double.POSITIVE_INFINITY)).hasMessageContaining("tokensPerSecond");
        assertThatThrownBy(() -> d.withPrefixCacheBlocks(-1)).hasMessageContaining("prefixCacheBlocks");
        assertThatThrownBy(() -> d.withPrefixBlockChars(0)).hasMessageContaining("prefixBlockChars");
    }
}
