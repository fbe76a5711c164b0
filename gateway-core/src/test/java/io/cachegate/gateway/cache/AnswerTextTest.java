package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.Dialect;
import io.cachegate.gateway.exchange.UsageTail;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The text and usage of Responses API answers, whole and streamed, beside chat's. */
class AnswerTextTest {

    private static final String RESPONSE = "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\","
            + "\"output\":[{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
            + "{\"type\":\"output_text\",\"text\":\"Hello there\",\"annotations\":[]}]}],"
            + "\"usage\":{\"input_tokens\":4,\"output_tokens\":2,\"total_tokens\":6}}";

    @Test
    void of_responseJson_isItsOutputText() {
        assertThat(AnswerText.of(null, bytes(RESPONSE))).as("named by its object").isEqualTo("Hello there");
        assertThat(AnswerText.of(Dialect.RESPONSES, bytes(RESPONSE))).isEqualTo("Hello there");
        assertThat(AnswerText.of(Dialect.CHAT, bytes(RESPONSE))).as("read as the dialect says").isEmpty();
        assertThat(AnswerText.of(null, bytes("{\"choices\":[{\"message\":{\"content\":\"chat\"}}]}"))).isEqualTo("chat");
    }

    @Test
    void of_responseStream_joinsItsTextDeltas() {
        String sse = "event: response.created\ndata: {\"type\":\"response.created\"}\n\n"
                + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hello\"}\n\n"
                + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\" there\"}\n\n"
                + "event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"text\":\"Hello there\"}\n\n";

        assertThat(AnswerText.of(null, bytes(sse))).isEqualTo("Hello there");
        assertThat(AnswerText.of(Dialect.RESPONSES, bytes(sse))).isEqualTo("Hello there");
    }

    @Test
    void usageTail_readsTheResponsesApiNames() {
        UsageTail tail = new UsageTail(Dialect.RESPONSES);
        ByteBuf content = Unpooled.wrappedBuffer(bytes(RESPONSE));
        try {
            tail.feed(content);
        } finally {
            content.release();
        }

        assertThat(tail.usage()).contains(new UsageTail.Usage(4, 2, 6));
    }

    @Test
    void cacheableText_ofAnswer_readsTheOutput() throws Exception {
        var answer = new com.fasterxml.jackson.databind.ObjectMapper().readTree(RESPONSE);

        assertThat(CacheableText.ofAnswer(answer)).isEqualTo("Hello there\n");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
