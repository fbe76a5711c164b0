package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.StreamJson.assembleAtOnce;
import static io.cachegate.cache.exact.StreamJson.assembleByteByByte;
import static io.cachegate.cache.exact.StreamJson.comparable;
import static io.cachegate.cache.exact.StreamJson.concat;
import static io.cachegate.cache.exact.StreamJson.document;
import static io.cachegate.cache.exact.StreamJson.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SseReplayTest {

    static final String CHAT = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1718000000,"model":"qwen",\
            "system_fingerprint":"fp_7","choices":[{"index":0,"message":{"role":"assistant",\
            "content":"The quick brown fox jumps over the lazy dog.\\n\\nSupercalifragilisticexpialidocious-and-then-some words, \
            naïve café, 日本語のテキストは空白なしで続きます、ずっとずっと長く続くのです。 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉"},\
            "logprobs":null,"finish_reason":"stop"}],\
            "usage":{"prompt_tokens":12,"completion_tokens":40,"total_tokens":52}}""";

    static final String TOOL_CALLS = """
            {"id":"chatcmpl-2","object":"chat.completion","created":1718000001,"model":"qwen","choices":[{"index":0,\
            "message":{"role":"assistant","content":null,"tool_calls":[\
            {"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\", \\"unit\\": \\"celsius\\", \\"days\\": [1, 2, 3], \\"note\\": \\"a rather long argument value that must be split\\"}"}},\
            {"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},\
            "logprobs":null,"finish_reason":"tool_calls"}],\
            "usage":{"prompt_tokens":30,"completion_tokens":25,"total_tokens":55}}""";

    static final String TEXT = """
            {"id":"cmpl-3","object":"text_completion","created":1718000002,"model":"qwen","choices":[\
            {"index":0,"text":" upon a time there was a gateway.","logprobs":null,"finish_reason":"length","stop_reason":null}],\
            "usage":{"prompt_tokens":4,"completion_tokens":8,"total_tokens":12}}""";

    static final String CHAT_N2 = """
            {"id":"chatcmpl-4","object":"chat.completion","created":1718000003,"model":"qwen","choices":[\
            {"index":0,"message":{"role":"assistant","content":"First answer, one of two."},"logprobs":null,"finish_reason":"stop"},\
            {"index":1,"message":{"role":"assistant","content":"Second: cut short"},"logprobs":null,"finish_reason":"length","stop_reason":"</s>"}],\
            "usage":{"prompt_tokens":5,"completion_tokens":11,"total_tokens":16}}""";

    static final String TEXT_N2 = """
            {"id":"cmpl-5","object":"text_completion","created":1718000004,"model":"qwen","choices":[\
            {"index":0,"text":"alpha beta","logprobs":null,"finish_reason":"stop"},\
            {"index":1,"text":"","logprobs":null,"finish_reason":"stop"}],\
            "usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}""";

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void events_assembledAgain_giveTheStoredAnswer(boolean includeUsage) {
        for (String stored : List.of(CHAT, TOOL_CALLS, TEXT, CHAT_N2, TEXT_N2,
                StreamAssemblerTest.VLLM_CHAT_DOCUMENT, StreamAssemblerTest.VLLM_TEXT_N2_DOCUMENT)) {
            JsonNode document = parse(stored);
            byte[] body = concat(SseReplay.events(document, includeUsage));

            JsonNode assembled = document(assembleAtOnce(body));

            assertThat(comparable(assembled, includeUsage)).as(stored).isEqualTo(comparable(document, includeUsage));
            assertThat(assembled.has("usage")).isEqualTo(includeUsage && document.has("usage"));
            assertThat(assembleByteByByte(body).completeDocument()).hasValue(assembleAtOnce(body).completeDocument().orElseThrow());
        }
    }

    @Test
    void events_chat_followTheOpenAiChunkFormat() {
        List<JsonNode> chunks = chunks(SseReplay.events(parse(CHAT), true));

        assertThat(chunks.get(0).path("choices").path(0).path("delta"))
                .isEqualTo(parse("{\"role\":\"assistant\",\"content\":\"\"}"));
        for (JsonNode chunk : chunks) {
            assertThat(chunk.path("id").asText()).isEqualTo("chatcmpl-1");
            assertThat(chunk.path("object").asText()).isEqualTo("chat.completion.chunk");
            assertThat(chunk.path("created").asLong()).isEqualTo(1718000000L);
            assertThat(chunk.path("model").asText()).isEqualTo("qwen");
            assertThat(chunk.path("system_fingerprint").asText()).isEqualTo("fp_7");
            assertThat(chunk.has("usage")).isTrue();
        }
        JsonNode finish = chunks.get(chunks.size() - 2).path("choices").path(0);
        assertThat(finish.path("delta")).isEqualTo(parse("{}"));
        assertThat(finish.path("finish_reason").asText()).isEqualTo("stop");
        JsonNode usage = chunks.get(chunks.size() - 1);
        assertThat(usage.path("choices")).isEqualTo(parse("[]"));
        assertThat(usage.path("usage").path("total_tokens").asInt()).isEqualTo(52);
        assertThat(chunks.subList(0, chunks.size() - 1)).allSatisfy(chunk -> assertThat(chunk.path("usage").isNull()).isTrue());
        assertThat(chunks.size()).isGreaterThan(10);
    }

    @Test
    void events_withoutIncludeUsage_carryNoUsageField() {
        List<byte[]> events = SseReplay.events(parse(CHAT), false);

        assertThat(chunks(events)).allSatisfy(chunk -> {
            assertThat(chunk.has("usage")).isFalse();
            assertThat(chunk.path("choices")).hasSize(1);
        });
        assertThat(new String(events.get(events.size() - 1), StandardCharsets.US_ASCII)).isEqualTo("data: [DONE]\n\n");
    }

    @Test
    void events_toolCalls_openEachCallThenStreamItsArguments() {
        List<JsonNode> deltas = chunks(SseReplay.events(parse(TOOL_CALLS), false)).stream()
                .map(chunk -> chunk.path("choices").path(0).path("delta"))
                .toList();

        assertThat(deltas.get(0)).isEqualTo(parse("{\"role\":\"assistant\",\"content\":null}"));
        assertThat(deltas.get(1)).isEqualTo(parse("""
                {"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}"""));
        assertThat(deltas.get(2).path("tool_calls").path(0).fieldNames()).toIterable().containsExactly("index", "function");
        long argumentPieces = deltas.stream()
                .filter(delta -> delta.path("tool_calls").path(0).path("index").asInt(-1) == 0)
                .count() - 1;
        assertThat(argumentPieces).isGreaterThan(2);
        assertThat(deltas).contains(parse("""
                {"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}"""));
    }

    @Test
    void events_textCompletion_areTextCompletionChunks() {
        List<JsonNode> chunks = chunks(SseReplay.events(parse(TEXT), false));

        assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.path("object").asText()).isEqualTo("text_completion"));
        assertThat(chunks.get(0).path("choices").path(0).path("text").asText()).isEqualTo(" upon");
        assertThat(chunks.get(chunks.size() - 1).path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void events_twoChoices_areOpenedTogetherReplayedInTurnAndFinishedTogether() {
        List<JsonNode> choices = chunks(SseReplay.events(parse(CHAT_N2), true)).stream()
                .filter(chunk -> !chunk.path("choices").isEmpty())
                .map(chunk -> chunk.path("choices").path(0))
                .toList();
        int last = choices.size() - 1;

        assertThat(choices.subList(0, 2)).extracting(choice -> choice.path("delta").has("role")).containsOnly(true);
        assertThat(choices.subList(0, 2)).extracting(choice -> choice.path("index").asInt()).containsExactly(0, 1);
        assertThat(choices.subList(2, last - 1)).extracting(choice -> choice.path("index").asInt())
                .isSortedAccordingTo(Integer::compare).contains(0, 1);
        assertThat(choices.subList(0, last - 1)).allSatisfy(choice -> assertThat(choice.path("finish_reason").isNull()).isTrue());
        assertThat(choices.subList(last - 1, last + 1)).extracting(choice -> choice.path("finish_reason").asText())
                .containsExactly("stop", "length");
    }

    @Test
    void canReplay_unknownOrIncompleteDocuments_isFalse() {
        assertThat(SseReplay.canReplay(parse(CHAT))).isTrue();
        assertThat(SseReplay.canReplay(parse(TEXT))).isTrue();
        assertThat(SseReplay.canReplay(parse("{\"object\":\"embedding\",\"data\":[]}"))).isFalse();
        assertThat(SseReplay.canReplay(parse("[]"))).isFalse();
        assertThat(SseReplay.canReplay(parse(CHAT.replace("\"model\":\"qwen\",", "")))).isFalse();
        assertThat(SseReplay.canReplay(parse(CHAT.replace("\"finish_reason\":\"stop\"", "\"finish_reason\":null")))).isFalse();
        assertThat(SseReplay.canReplay(parse(TEXT.replace("\"logprobs\":null", "\"logprobs\":{\"tokens\":[\" upon\"]}")))).isFalse();
        assertThat(SseReplay.canReplay(parse(TOOL_CALLS.replace("\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}", "\"custom\":{}")))).isFalse();
        assertThatThrownBy(() -> SseReplay.events(parse("{\"object\":\"embedding\"}"), false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pieces_cutBeforeWordsAndNeverInsideASurrogatePair() {
        assertThat(SseReplay.pieces("Hello  big world")).containsExactly("Hello", "  big", " world");
        assertThat(SseReplay.pieces("")).isEmpty();

        String emoji = "🎉".repeat(40);
        List<String> pieces = SseReplay.pieces(emoji);
        assertThat(String.join("", pieces)).isEqualTo(emoji);
        assertThat(pieces).allSatisfy(piece -> {
            assertThat(piece.length()).isLessThanOrEqualTo(SseReplay.MAX_PIECE_CHARS);
            assertThat(Character.isLowSurrogate(piece.charAt(0))).isFalse();
        });
        String odd = "a" + emoji;
        assertThat(SseReplay.pieces(odd)).allSatisfy(piece -> assertThat(Character.isLowSurrogate(piece.charAt(0))).isFalse());
    }

    private static List<JsonNode> chunks(List<byte[]> events) {
        assertThat(events).allSatisfy(event -> {
            String text = new String(event, StandardCharsets.UTF_8);
            assertThat(text).startsWith("data: ").endsWith("\n\n");
            assertThat(text.substring(0, text.length() - 2)).doesNotContain("\n");
        });
        return events.subList(0, events.size() - 1).stream()
                .map(event -> parse(new String(event, StandardCharsets.UTF_8).substring("data: ".length())))
                .toList();
    }
}
