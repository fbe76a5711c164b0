package io.cachegate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.JsonLimits;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponsesRequestParserTest {

    private final OpenAiRequestParser parser = new OpenAiRequestParser(new JsonLimits(16, 1000, 20));

    private OpenAiRequest parse(String body) {
        return parser.parse(Endpoint.RESPONSES, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void parse_stringInput_readsFieldsAndTheConversation() {
        OpenAiRequest r = parse("{\"model\":\"m\",\"instructions\":\"be brief\",\"input\":\"hello there\","
                + "\"temperature\":0,\"top_p\":0.5,\"max_output_tokens\":32,\"seed\":4,\"stream\":true,\"store\":false,"
                + "\"text\":{\"format\":{\"type\":\"json_object\"}},\"tools\":[{\"type\":\"web_search\"}],"
                + "\"previous_response_id\":null,\"metadata\":{\"a\":\"b\"}}");

        assertThat(r.endpoint()).isEqualTo(Endpoint.RESPONSES);
        assertThat(r.model()).isEqualTo("m");
        assertThat(r.stream()).isTrue();
        assertThat(r.includeUsage()).isFalse();
        assertThat(r.sampling().temperature()).hasValue(0.0);
        assertThat(r.sampling().topP()).hasValue(0.5);
        assertThat(r.sampling().maxTokens()).hasValue(32);
        assertThat(r.sampling().seed()).hasValue(4L);
        assertThat(r.input().toString()).isEqualTo("[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":\"hello there\"}]");
        assertThat(r.promptText()).isEqualTo("be brief\nhello there\n");
        assertThat(r.body().path("input").asText()).as("the body is forwarded as it came").isEqualTo("hello there");
    }

    @Test
    void parse_itemList_messagesPartsAndOtherItems() {
        OpenAiRequest r = parse("{\"model\":\"m\",\"input\":[{\"role\":\"developer\",\"content\":\"rules\"},"
                + "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"look\"},"
                + "{\"type\":\"input_image\",\"image_url\":\"https://x/y.png\"}]},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"42\"}]}");

        assertThat(r.input().size()).isEqualTo(3);
        assertThat(r.promptText()).isEqualTo("rules\nlook\n");
    }

    @Test
    void parse_badInput_is400NamingTheField() {
        rejects("{\"model\":\"m\"}", "input");
        rejects("{\"model\":\"m\",\"input\":7}", "input");
        rejects("{\"model\":\"m\",\"input\":[]}", "input");
        rejects("{\"input\":\"hi\"}", "model");
        rejects("{\"model\":\"m\",\"input\":[\"hi\"]}", "input[0]");
        rejects("{\"model\":\"m\",\"input\":[{\"role\":\"robot\",\"content\":\"hi\"}]}", "input[0].role");
        rejects("{\"model\":\"m\",\"input\":[{\"role\":\"user\"}]}", "input[0].content");
        rejects("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\"}]}]}",
                "input[0].content[0].text");
        rejects("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[\"hi\"]}]}", "input[0].content[0]");
        rejects("{\"model\":\"m\",\"input\":[{\"type\":3}]}", "input[0].type");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"instructions\":[\"x\"]}", "instructions");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"previous_response_id\":1}", "previous_response_id");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"text\":{\"format\":\"json\"}}", "text.format");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"text\":\"json\"}", "text");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"tools\":{}}", "tools");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"tools\":[{\"name\":\"f\"}]}", "tools[0]");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"temperature\":\"0\"}", "temperature");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"max_output_tokens\":0}", "max_output_tokens");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"max_output_tokens\":1.5}", "max_output_tokens");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"store\":\"yes\"}", "store");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"stream\":1}", "stream");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"tool_choice\":3}", "tool_choice");
        rejects("{\"model\":\"m\",\"input\":\"hi\",\"metadata\":[]}", "metadata");
    }

    @Test
    void parse_strictJson_asForChat() {
        assertThatThrownBy(() -> parse("{\"model\":\"m\",\"input\":\"a\",\"input\":\"b\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_JSON));
    }

    private void rejects(String body, String param) {
        assertThatThrownBy(() -> parse(body)).as(body).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.INVALID_REQUEST);
            assertThat(e.param()).as(e.getMessage()).isEqualTo(param);
            assertThat(e.getMessage()).contains(param.replaceAll("\\[.*", ""));
        });
    }
}
