package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What each {@link Dialect} owns, pinned where stored entries depend on it: the key name and canonical bytes (an
 * entry written before a change must still hit after it), and which stored documents each replays.
 */
class DialectTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RouteCachePolicy DEFAULT_ROUTE =
            new RouteCachePolicy(true, false, false, Normalize.NONE, Set.of("stop"), true, false);

    private static ObjectNode body(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String canonical(Dialect dialect, String json, Normalize normalize) {
        return new String(CanonicalRequest.of(dialect, body(json), new CanonicalOptions(normalize, false)),
                StandardCharsets.UTF_8);
    }

    @Test
    void keyName_isTheNameEveryStoredEntryIsKeyedOn() {
        assertThat(Dialect.all()).extracting(Dialect::keyName)
                .containsExactly("chat", "completion", "embedding", "response");
    }

    /** Bytes written by the code before the dialects (RequestKind), for one request of each rule set. */
    @Test
    void canonicalize_keepsTheBytesOfEntriesStoredBeforeTheDialects() {
        assertThat(canonical(Dialect.COMPLETIONS,
                "{\"model\":\"m\",\"prompt\":\"Hi  There\",\"temperature\":0.7,\"best_of\":1,\"user\":\"x\","
                        + "\"safety_identifier\":\"y\"}", Normalize.NONE))
                .isEqualTo("[\"completion\",{\"best_of\":1,\"echo\":false,\"frequency_penalty\":0,\"max_tokens\":16,"
                        + "\"model\":\"m\",\"n\":1,\"presence_penalty\":0,\"prompt\":\"Hi  There\",\"temperature\":0.7,"
                        + "\"top_p\":1}]");
        assertThat(canonical(Dialect.EMBEDDINGS, "{\"model\":\"e\",\"input\":[\"A  b\",\"c\"],\"dimensions\":null,"
                + "\"encoding_format\":\"base64\",\"user\":\"u\"}", Normalize.WHITESPACE))
                .isEqualTo("[\"embedding\",{\"encoding_format\":\"base64\",\"input\":[\"A b\",\"c\"],"
                        + "\"model\":\"e\"}]");
        assertThat(canonical(Dialect.CHAT, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"text\",\"text\":\"A  b\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"seed\":3,\"max_tokens\":5,"
                + "\"max_completion_tokens\":7,\"stop\":[],\"tool_choice\":null}", Normalize.CASE))
                .isEqualTo("[\"chat\",{\"frequency_penalty\":0,\"logprobs\":false,\"max_completion_tokens\":7,"
                        + "\"max_tokens\":5,\"messages\":[{\"content\":[{\"text\":\"a b\",\"type\":\"text\"},"
                        + "{\"image_url\":{\"url\":\"x\"},\"type\":\"image_url\"}],\"role\":\"user\"}],\"model\":\"m\","
                        + "\"n\":1,\"parallel_tool_calls\":true,\"presence_penalty\":0,\"response_format\":"
                        + "{\"type\":\"text\"},\"seed\":3,\"temperature\":1,\"tool_choice\":\"auto\",\"tools\":"
                        + "[{\"function\":{\"name\":\"f\"},\"type\":\"function\"}],\"top_p\":1}]");
    }

    @Test
    void bypass_samplingDialectsRefuseSampledRequests_embeddingsNever() {
        ObjectNode sampled = body("{\"model\":\"m\",\"temperature\":0.7,\"n\":2}");
        assertThat(Dialect.CHAT.bypass(sampled, DEFAULT_ROUTE)).isEqualTo(BypassReason.N_GREATER_THAN_ONE);
        assertThat(Dialect.COMPLETIONS.bypass(sampled, DEFAULT_ROUTE)).isEqualTo(BypassReason.N_GREATER_THAN_ONE);
        assertThat(Dialect.RESPONSES.bypass(sampled, DEFAULT_ROUTE)).isEqualTo(BypassReason.N_GREATER_THAN_ONE);
        assertThat(Dialect.EMBEDDINGS.bypass(sampled, DEFAULT_ROUTE)).isNull();
        ObjectNode continued = body("{\"model\":\"m\",\"temperature\":0,\"previous_response_id\":\"r\"}");
        assertThat(Dialect.RESPONSES.bypass(continued, DEFAULT_ROUTE)).isEqualTo(BypassReason.SERVER_STATE);
        assertThat(Dialect.CHAT.bypass(continued, DEFAULT_ROUTE)).as("not a chat field").isNull();
    }

    @Test
    void replayAndAssembler_eachDialectReadsAndWritesItsOwnStreamFormat() {
        JsonNode chat = ResponsesStreamTest.json("{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,"
                + "\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},"
                + "\"finish_reason\":\"stop\"}]}");
        JsonNode response = ResponsesStreamTest.response("completed", ResponsesStreamTest.message("hi"));
        assertThat(Dialect.CHAT.replay(chat, false)).isPresent();
        assertThat(Dialect.COMPLETIONS.replay(chat, false)).as("one chunk writer for both formats").isPresent();
        assertThat(Dialect.RESPONSES.replay(chat, false)).isEmpty();
        assertThat(Dialect.EMBEDDINGS.replay(chat, false)).isEmpty();
        List<byte[]> events = Dialect.RESPONSES.replay(response, false).orElseThrow();
        assertThat(Dialect.CHAT.replay(response, false)).isEmpty();

        AnswerAssembler responses = Dialect.RESPONSES.assembler(1 << 20);
        AnswerAssembler chatAssembler = Dialect.CHAT.assembler(1 << 20);
        for (byte[] event : events) {
            responses.feed(event, 0, event.length);
            chatAssembler.feed(event, 0, event.length);
        }
        assertThat(responses.completeDocument())
                .map(b -> ResponsesStreamTest.json(new String(b, StandardCharsets.UTF_8))).contains(response);
        assertThat(chatAssembler.completeDocument()).as("typed events are not chat chunks").isEmpty();
    }

    @Test
    void answerSide_eachDialectReadsItsOwnAnswerShape() {
        assertThat(Dialect.CHAT.answerText(body("{\"object\":\"chat.completion\",\"choices\":["
                + "{\"message\":{\"content\":\"a\"}},{\"message\":{\"content\":\"b\"}}]}"))).isEqualTo("a\nb");
        assertThat(Dialect.COMPLETIONS.answerText(body("{\"object\":\"text_completion\",\"choices\":[{\"text\":\"t\"}]}")))
                .isEqualTo("t");
        assertThat(Dialect.RESPONSES.answerText(body("{\"object\":\"response\",\"output\":[{\"type\":\"message\","
                + "\"content\":[{\"type\":\"output_text\",\"text\":\"r\"}]}]}"))).isEqualTo("r");
        assertThat(Dialect.EMBEDDINGS.answerText(body("{\"object\":\"list\",\"data\":[]}"))).isEmpty();
        assertThat(Dialect.CHAT.deltaText(body("{\"choices\":[{\"delta\":{\"content\":\"d\"}}]}"))).isEqualTo("d");
        assertThat(Dialect.RESPONSES.deltaText(body("{\"type\":\"response.output_text.delta\",\"delta\":\"e\"}")))
                .isEqualTo("e");
        assertThat(Dialect.RESPONSES.deltaText(body("{\"type\":\"response.created\"}"))).isEmpty();
        ObjectNode chatUsage = body("{\"prompt_tokens\":7,\"completion_tokens\":3}");
        ObjectNode responsesUsage = body("{\"input_tokens\":4,\"output_tokens\":2}");
        assertThat(Dialect.CHAT.promptTokens(chatUsage)).isEqualTo(7);
        assertThat(Dialect.CHAT.completionTokens(chatUsage)).isEqualTo(3);
        assertThat(Dialect.RESPONSES.promptTokens(responsesUsage)).isEqualTo(4);
        assertThat(Dialect.RESPONSES.completionTokens(responsesUsage)).isEqualTo(2);
        assertThat(Dialect.RESPONSES.promptTokens(chatUsage)).as("another API's names are not read").isZero();
    }

    @Test
    void ofAnswer_namesTheDialectOfAStoredDocument() {
        assertThat(Dialect.ofAnswer(body("{\"object\":\"response\"}"))).isSameAs(Dialect.RESPONSES);
        assertThat(Dialect.ofAnswer(body("{\"object\":\"text_completion\"}"))).isSameAs(Dialect.COMPLETIONS);
        assertThat(Dialect.ofAnswer(body("{\"object\":\"list\"}"))).isSameAs(Dialect.EMBEDDINGS);
        assertThat(Dialect.ofAnswer(body("{\"object\":\"chat.completion\"}"))).isSameAs(Dialect.CHAT);
    }
}
