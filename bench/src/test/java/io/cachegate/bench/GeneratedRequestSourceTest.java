package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GeneratedRequestSourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void next_sameSeed_sameSequence() {
        GeneratorSpec spec = GeneratorSpec.defaults().withDistinctPrompts(50).withStreamFraction(0.5);
        RequestSource a = RequestSources.generated(spec);
        RequestSource b = RequestSources.generated(spec);

        for (int i = 0; i < 200; i++) {
            BenchRequest x = a.next();
            BenchRequest y = b.next();
            assertThat(y.body()).isEqualTo(x.body());
            assertThat(y.streaming()).isEqualTo(x.streaming());
        }
    }

    @Test
    void next_otherSeed_otherSequence() {
        GeneratorSpec spec = GeneratorSpec.defaults().withDistinctPrompts(1_000);
        List<String> a = bodies(RequestSources.generated(spec), 20);
        List<String> b = bodies(RequestSources.generated(spec.withSeed(7)), 20);

        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void next_manyDraws_useExactlyTheDistinctPrompts() throws IOException {
        RequestSource source = RequestSources.generated(GeneratorSpec.defaults().withDistinctPrompts(10));
        Set<String> prompts = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            prompts.add(JSON.readTree(source.next().body()).at("/messages/0/content").asText());
        }

        assertThat(prompts).hasSize(10);
    }

    @Test
    void next_body_isDeterministicChatRequest() throws IOException {
        GeneratorSpec spec = new GeneratorSpec("qwen2.5-0.5b", 3, 1.0, 17, 1);
        BenchRequest request = RequestSources.generated(spec).next();
        JsonNode body = JSON.readTree(request.body());

        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/chat/completions");
        assertThat(request.streaming()).isTrue();
        assertThat(body.get("model").asText()).isEqualTo("qwen2.5-0.5b");
        assertThat(body.get("temperature").asInt()).isZero();
        assertThat(body.get("max_tokens").asInt()).isEqualTo(17);
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.at("/messages/0/role").asText()).isEqualTo("user");
    }

    @Test
    void next_streamFraction_isRoughlyHonoured() {
        RequestSource source = RequestSources.generated(GeneratorSpec.defaults().withStreamFraction(0.25));
        int streaming = 0;
        for (int i = 0; i < 10_000; i++) {
            streaming += source.next().streaming() ? 1 : 0;
        }

        assertThat(streaming).isBetween(2_200, 2_800);
    }

    @Test
    void next_noStreaming_neverStreams() throws IOException {
        RequestSource source = RequestSources.generated(GeneratorSpec.defaults());
        for (int i = 0; i < 100; i++) {
            BenchRequest request = source.next();
            assertThat(request.streaming()).isFalse();
            assertThat(JSON.readTree(request.body()).has("stream")).isFalse();
        }
    }

    @Test
    void next_tooManyPromptsToCache_stillEncodesEach() throws IOException {
        int distinct = GeneratedRequestSource.MAX_CACHED_BODIES;
        RequestSource source = RequestSources.generated(GeneratorSpec.defaults().withDistinctPrompts(distinct));

        assertThat(JSON.readTree(source.next().body()).get("model").asText()).isEqualTo("llama-3.1-8b");
    }

    @Test
    void promptText_differentIndices_differ() {
        GeneratedRequestSource source = new GeneratedRequestSource(GeneratorSpec.defaults());

        assertThat(source.promptText(1)).isNotEqualTo(source.promptText(2));
        assertThat(source.promptText(1)).isEqualTo(source.promptText(1));
    }

    private static List<String> bodies(RequestSource source, int count) {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            bodies.add(new String(source.next().body(), StandardCharsets.UTF_8));
        }
        return bodies;
    }
}
