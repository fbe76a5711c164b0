package io.cachegate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.config.JsonLimits;

/**
 * Fuzzes the strict request parser with arbitrary bodies. Property: a body is either a request (a model named,
 * every number finite) or an {@link ApiException} of a 400 kind whose message names no Java type; nothing else
 * escapes (no Jackson, number-format or stack-overflow error). Seeds in {@code OpenAiRequestParserFuzzTestInputs}.
 */
class OpenAiRequestParserFuzzTest {

    private static final Endpoint[] PARSED = {Endpoint.CHAT_COMPLETIONS, Endpoint.COMPLETIONS, Endpoint.EMBEDDINGS};
    private static final OpenAiRequestParser PARSER = new OpenAiRequestParser(JsonLimits.defaults());

    @FuzzTest(maxDuration = "10s")
    void parse_anyBody_isARequestOrA400(FuzzedDataProvider data) {
        Endpoint endpoint = data.pickValue(PARSED);
        byte[] body = data.consumeRemainingAsBytes();
        OpenAiRequest request;
        try {
            request = PARSER.parse(endpoint, body);
        } catch (ApiException e) {
            assertThat(e.kind().status()).isEqualTo(400);
            assertThat(e.getMessage()).doesNotContain("com.fasterxml").doesNotContain("java.").doesNotContain("Exception");
            return;
        }
        assertThat(request.model()).isNotNull();
        assertFinite(request.body());
    }

    private static void assertFinite(JsonNode node) {
        if (node.isNumber()) {
            assertThat(Double.isFinite(node.doubleValue()) || node.isBigDecimal() || node.isBigInteger()).isTrue();
        }
        node.forEach(OpenAiRequestParserFuzzTest::assertFinite);
    }
}
