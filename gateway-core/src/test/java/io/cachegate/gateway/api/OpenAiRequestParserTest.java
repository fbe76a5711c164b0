package io.cachegate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.JsonLimits;
import java.nio.charset.StandardCharsets;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

class OpenAiRequestParserTest {

    private final OpenAiRequestParser parser = new OpenAiRequestParser(new JsonLimits(8, 1000, 20));

    private static final String MESSAGES = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    @Test
    void parse_validChat_readsFields() {
        OpenAiRequest r = parser.parse(Endpoint.CHAT_COMPLETIONS, bytes("{\"model\":\"m\"," + MESSAGES
                + ",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"temperature\":0,\"max_tokens\":7,"
                + "\"seed\":3,\"n\":1}"));
        assertThat(r.model()).isEqualTo("m");
        assertThat(r.stream()).isTrue();
        assertThat(r.includeUsage()).isTrue();
        assertThat(r.input().size()).isEqualTo(1);
        assertThat(r.sampling().temperature()).hasValue(0.0);
        assertThat(r.sampling().maxTokens()).hasValue(7);
        assertThat(r.sampling().seed()).hasValue(3L);
        assertThat(r.sampling().n()).isEqualTo(1);
    }

    @Test
    void parse_maxCompletionTokens_winsOverMaxTokens() {
        OpenAiRequest r = parser.parse(Endpoint.CHAT_COMPLETIONS,
                bytes("{\"model\":\"m\"," + MESSAGES + ",\"max_tokens\":7,\"max_completion_tokens\":9}"));
        assertThat(r.sampling().maxTokens()).hasValue(9);
    }

    @Test
    void parse_completionsAndEmbeddings_readInput() {
        assertThat(parser.parse(Endpoint.COMPLETIONS, bytes("{\"model\":\"m\",\"prompt\":[\"a\",\"b\"]}")).input().size())
                .isEqualTo(2);
        OpenAiRequest e = parser.parse(Endpoint.EMBEDDINGS, bytes("{\"model\":\"m\",\"input\":\"x\"}"));
        assertThat(e.input().textValue()).isEqualTo("x");
        assertThat(e.sampling()).isEqualTo(SamplingParameters.NONE);
    }

    @Test
    void parse_malformedOrTruncated_isInvalidJson() {
        rejects("{\"model\":\"m\",", ErrorKind.INVALID_JSON);
        rejects("{\"model\": \"m", ErrorKind.INVALID_JSON);
        rejects("{model: 1}", ErrorKind.INVALID_JSON);
        rejects("", ErrorKind.INVALID_JSON);
        rejects("   ", ErrorKind.INVALID_JSON);
        rejects("null", ErrorKind.INVALID_JSON);
        rejects("[]", ErrorKind.INVALID_JSON);
        rejects("\"text\"", ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_invalidUtf8_isInvalidJson() {
        byte[] body = bytes("{\"model\":\"m\"," + MESSAGES.replace("hi", "h__") + "}");
        int at = new String(body, StandardCharsets.ISO_8859_1).indexOf("__");
        body[at] = (byte) 0xc3; // a lead byte followed by an ASCII byte
        body[at + 1] = (byte) 0x28;
        assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS, body))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_JSON));
        body[at] = (byte) 0xff;
        assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS, body))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_JSON));
    }

    @Test
    void parse_wrongTypes_areInvalidRequestNamingTheParam() {
        rejects("{\"model\":\"m\",\"messages\":\"hi\"}", ErrorKind.INVALID_REQUEST).satisfies(p("messages"));
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"temperature\":\"0\"}", ErrorKind.INVALID_REQUEST)
                .satisfies(p("temperature"));
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"stream\":1}", ErrorKind.INVALID_REQUEST).satisfies(p("stream"));
        rejects("{\"model\":1," + MESSAGES + "}", ErrorKind.INVALID_REQUEST).satisfies(p("model"));
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"max_tokens\":1.5}", ErrorKind.INVALID_REQUEST)
                .satisfies(p("max_tokens"));
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"n\":0}", ErrorKind.INVALID_REQUEST).satisfies(p("n"));
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"stream_options\":true}", ErrorKind.INVALID_REQUEST)
                .satisfies(p("stream_options"));
        rejects("{\"model\":\"m\",\"messages\":[\"hi\"]}", ErrorKind.INVALID_REQUEST).satisfies(p("messages[0]"));
        rejects("{\"model\":\"m\",\"messages\":[{\"content\":\"hi\"}]}", ErrorKind.INVALID_REQUEST)
                .satisfies(p("messages[0].role"));
        rejects("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":5}]}", ErrorKind.INVALID_REQUEST)
                .satisfies(p("messages[0].content"));
    }

    @Test
    void parse_missingFields_areInvalidRequest() {
        rejects("{" + MESSAGES + "}", ErrorKind.INVALID_REQUEST).satisfies(p("model"));
        rejects("{\"model\":\"\"," + MESSAGES + "}", ErrorKind.INVALID_REQUEST).satisfies(p("model"));
        rejects("{\"model\":\"m\"}", ErrorKind.INVALID_REQUEST).satisfies(p("messages"));
        rejects("{\"model\":\"m\",\"messages\":[]}", ErrorKind.INVALID_REQUEST).satisfies(p("messages"));
        assertThatThrownBy(() -> parser.parse(Endpoint.COMPLETIONS, bytes("{\"model\":\"m\"}")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.param()).isEqualTo("prompt"));
        assertThatThrownBy(() -> parser.parse(Endpoint.EMBEDDINGS, bytes("{\"model\":\"m\",\"input\":3}")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.param()).isEqualTo("input"));
    }

    @Test
    void parse_duplicateKeys_isInvalidJson() {
        rejects("{\"model\":\"m\",\"model\":\"n\"," + MESSAGES + "}", ErrorKind.INVALID_JSON);
        rejects("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"role\":\"system\",\"content\":\"x\"}]}",
                ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_nestingDeeperThanLimit_isInvalidJson() {
        String deep = "[".repeat(20) + "]".repeat(20);
        rejects("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":" + deep + "}]}", ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_overLongStringOrNumber_isInvalidJson() {
        rejects("{\"model\":\"" + "m".repeat(2000) + "\"," + MESSAGES + "}", ErrorKind.INVALID_JSON);
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"seed\":" + "1".repeat(30) + "}", ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_trailingData_isInvalidJson() {
        rejects("{\"model\":\"m\"," + MESSAGES + "} {}", ErrorKind.INVALID_JSON);
        rejects("{\"model\":\"m\"," + MESSAGES + "}x", ErrorKind.INVALID_JSON);
        rejects("{\"model\":\"m\"," + MESSAGES + "}]", ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_trailingValue_messageNamesNoJavaType() {
        rejects("{\"model\":\"m\"," + MESSAGES + "} {}", ErrorKind.INVALID_JSON)
                .hasMessage("Request body is not valid JSON: data follows the JSON value");
    }

    @Test
    void parse_nonFiniteNumbers_areInvalidJson() {
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"temperature\":NaN}", ErrorKind.INVALID_JSON);
        rejects("{\"model\":\"m\"," + MESSAGES + ",\"temperature\":Infinity}", ErrorKind.INVALID_JSON);
    }

    @Test
    void parse_numberOverflowingADouble_isInvalidRequestNamingThePath() {
        assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS,
                bytes("{\"model\":\"m\"," + MESSAGES + ",\"temperature\":1e999999}")))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_REQUEST);
                    assertThat(e.kind().status()).isEqualTo(400);
                    assertThat(e.param()).isEqualTo("temperature");
                });
        assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS,
                bytes("{\"model\":\"m\"," + MESSAGES + ",\"logit_bias\":{\"5\":-1e999}}")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.param()).isEqualTo("logit_bias.5"));
        assertThatThrownBy(() -> parser.parseObject(bytes("{\"model\":\"m\",\"x\":[1,[2e400]]}")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.param()).isEqualTo("x[1][0]"));
    }

    @Test
    void parse_largeButFiniteNumber_isAccepted() {
        assertThat(parser.parse(Endpoint.CHAT_COMPLETIONS,
                bytes("{\"model\":\"m\"," + MESSAGES + ",\"top_p\":1e300}")).sampling().topP()).hasValue(1e300);
    }

    @Test
    void rejection_carriesNoStackTrace() {
        assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS, bytes("{")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getStackTrace()).isEmpty());
    }

    @Test
    void errorBody_hasOpenAiShape() {
        String body = new String(ErrorBodies.render(ErrorKind.INVALID_REQUEST, "bad \"x\"\n", "p"), StandardCharsets.UTF_8);
        assertThat(body).isEqualTo("{\"error\":{\"message\":\"bad \\\"x\\\"\\n\",\"type\":\"invalid_request_error\","
                + "\"param\":\"p\",\"code\":\"invalid_request\"}}");
        assertThat(new String(ErrorBodies.render(ErrorKind.UPSTREAM_TIMEOUT, "slow", null), StandardCharsets.UTF_8))
                .contains("\"param\":null");
    }

    private AbstractThrowableAssert<?, ? extends Throwable> rejects(String body, ErrorKind kind) {
        return assertThatThrownBy(() -> parser.parse(Endpoint.CHAT_COMPLETIONS, bytes(body)))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind));
    }

    private static org.assertj.core.api.ThrowingConsumer<Throwable> p(String param) {
        return t -> assertThat(((ApiException) t).param()).isEqualTo(param);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
