package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.quote;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code usage.prompt_tokens_details.cached_tokens} with the character-block prefix cache, and without a cache. */
class CachedTokensUsageTest {

    private static final String CHAT = "/v1/chat/completions";
    private static final String SYSTEM = "You are a careful assistant. ".repeat(40); // 1160 characters

    private static String body(boolean stream) {
        return "{\"max_tokens\":2" + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
                + ",\"messages\":[{\"role\":\"system\",\"content\":" + quote(SYSTEM) + "},"
                + "{\"role\":\"user\",\"content\":\"What is a cache?\"}]}";
    }

    @Test
    void charBlocks_secondRequest_reportsTheEstimate() {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withPrefixCacheBlocks(100)
                .withPrefixBlockChars(256))) {
            JsonNode cold = json(post(sim, CHAT, body(false)).body()).get("usage");
            TestHttp.awaitStats(sim, s -> s.prefixBlocksCached() > 0);
            JsonNode warm = json(post(sim, CHAT, body(false)).body()).get("usage");
            List<String> events = TestHttp.sseData(post(sim, CHAT, body(true)).body());
            JsonNode streamed = json(events.get(events.size() - 2)).get("usage");

            int prompt = warm.get("prompt_tokens").asInt();
            String text = "system\n" + SYSTEM + "\nuser\nWhat is a cache?\n";
            // 4 full blocks of 256 characters of 1,194: the blocks' share of the prompt's (word) tokens.
            int expected = LatencyModel.cachedTokens(prompt, text.length(), 4 * 256);
            assertThat(cold.at("/prompt_tokens_details/cached_tokens").asInt()).isZero();
            assertThat(warm.at("/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(expected).isPositive();
            assertThat(streamed.at("/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(expected);
        }
    }

    @Test
    void noPrefixCache_detailsStayNullAndTheStreamHasNone() {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults())) {
            JsonNode whole = json(post(sim, CHAT, body(false)).body()).get("usage");
            List<String> events = TestHttp.sseData(post(sim, CHAT, body(true)).body());
            JsonNode streamed = json(events.get(events.size() - 2)).get("usage");

            assertThat(whole.get("prompt_tokens_details").isNull()).isTrue();
            assertThat(streamed.has("prompt_tokens_details")).isFalse();
        }
    }
}
