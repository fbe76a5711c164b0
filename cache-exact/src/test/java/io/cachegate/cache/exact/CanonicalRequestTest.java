package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MSG = "\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]";
    private static final CanonicalOptions DEFAULTS = CanonicalOptions.DEFAULTS;

    static ObjectNode body(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    static String chat(String json) {
        return text(Dialect.CHAT, json, DEFAULTS);
    }

    static String text(Dialect kind, String json, CanonicalOptions options) {
        return new String(CanonicalRequest.of(kind, body(json), options), StandardCharsets.UTF_8);
    }

    @Test
    void of_chatDefaults_areFilledAndRenderedInOneSpelling() {
        assertThat(chat("{" + MSG + "}")).isEqualTo("[\"chat\",{\"frequency_penalty\":0,\"logprobs\":false,"
                + "\"messages\":[{\"content\":\"Hi\",\"role\":\"user\"}],\"model\":\"m\",\"n\":1,"
                + "\"presence_penalty\":0,\"response_format\":{\"type\":\"text\"},\"temperature\":1,"
                + "\"tool_choice\":\"none\",\"top_p\":1}]");
    }

    @Test
    void of_emptyBodyAndExplicitDefaultTemperature_sameBytes() {
        assertThat(chat("{}")).isEqualTo(chat("{\"temperature\":1}"));
        assertThat(chat("{}")).isEqualTo(chat("{\"temperature\":1.0,\"top_p\":1e0,\"n\":1,\"presence_penalty\":0.0,"
                + "\"frequency_penalty\":-0.0,\"logprobs\":false,\"response_format\":{\"type\":\"text\"},"
                + "\"tool_choice\":\"none\"}"));
    }

    @Test
    void of_explicitNullOptionalFields_sameAsAbsent() {
        assertThat(chat("{" + MSG + "}")).isEqualTo(chat("{" + MSG + ",\"temperature\":null,\"seed\":null,"
                + "\"stop\":null,\"logit_bias\":null,\"tools\":null,\"tool_choice\":null,\"response_format\":null,"
                + "\"max_tokens\":null,\"n\":null}"));
    }

    @Test
    void of_keyOrder_isIrrelevant() {
        assertThat(chat("{\"model\":\"m\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"))
                .isEqualTo(chat("{\"messages\":[{\"content\":\"Hi\",\"role\":\"user\"}],\"temperature\":0,\"model\":\"m\"}"));
        assertThat(chat("{\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"b\":1,\"a\":{\"y\":2,\"x\":3}}}}"))
                .isEqualTo(chat("{\"response_format\":{\"json_schema\":{\"a\":{\"x\":3,\"y\":2},\"b\":1},\"type\":\"json_schema\"}}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "1e0", "1E+0", "10e-1", "1.000", "0.1e1"})
    void of_numberSpellings_sameBytes(String spelling) {
        assertThat(chat("{\"temperature\":" + spelling + "}")).isEqualTo(chat("{\"temperature\":1}"));
        assertThat(chat("{\"seed\":" + spelling + "}")).isEqualTo(chat("{\"seed\":1}"));
    }

    @Test
    void number_rendering_isFixed() {
        assertThat(CanonicalJson.number(new java.math.BigDecimal("0.50"))).isEqualTo("0.5");
        assertThat(CanonicalJson.number(new java.math.BigDecimal("-0.000"))).isEqualTo("0");
        assertThat(CanonicalJson.number(new java.math.BigDecimal("1E+3"))).isEqualTo("1000");
        assertThat(CanonicalJson.number(new java.math.BigDecimal("123456789012345678901"))).isEqualTo("123456789012345678901");
        assertThat(CanonicalJson.number(new java.math.BigDecimal("1E+25"))).isEqualTo("1e25");
        assertThat(CanonicalJson.number(new java.math.BigDecimal("1.5E-30"))).isEqualTo("15e-31");
        assertThat(chat("{\"seed\":12345678901234567890123}")).contains("\"seed\":12345678901234567890123");
        assertThat(chat("{\"temperature\":1e400}")).contains("\"temperature\":Infinity");
    }

    @Test
    void of_transportAndBookkeepingFields_areRemoved() {
        String plain = chat("{" + MSG + "}");
        assertThat(chat("{" + MSG + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}")).isEqualTo(plain);
        assertThat(chat("{" + MSG + ",\"stream\":false}")).isEqualTo(plain);
        assertThat(chat("{" + MSG + ",\"metadata\":{\"job\":\"7\"},\"store\":true,\"request_id\":\"r-1\","
                + "\"prompt_cache_key\":\"k\"}")).isEqualTo(plain);
    }

    @Test
    void of_user_ignoredUnlessKeyOnUser() {
        assertThat(chat("{" + MSG + ",\"user\":\"alice\"}")).isEqualTo(chat("{" + MSG + ",\"user\":\"bob\"}"));
        assertThat(chat("{" + MSG + ",\"safety_identifier\":\"alice\"}")).isEqualTo(chat("{" + MSG + "}"));
        CanonicalOptions perUser = new CanonicalOptions(Normalize.NONE, true);
        assertThat(text(Dialect.CHAT, "{" + MSG + ",\"user\":\"alice\"}", perUser))
                .isNotEqualTo(text(Dialect.CHAT, "{" + MSG + ",\"user\":\"bob\"}", perUser));
        assertThat(text(Dialect.EMBEDDINGS, "{\"input\":\"x\",\"user\":\"a\"}", DEFAULTS))
                .isEqualTo(text(Dialect.EMBEDDINGS, "{\"input\":\"x\"}", DEFAULTS));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\"temperature\":0", "\"temperature\":0.7", "\"top_p\":0.9", "\"n\":2", "\"presence_penalty\":0.5",
            "\"frequency_penalty\":0.5", "\"seed\":42", "\"max_tokens\":100", "\"max_completion_tokens\":100",
            "\"stop\":[\"\\n\"]", "\"logit_bias\":{\"50256\":-100}", "\"logprobs\":true", "\"top_logprobs\":2",
            "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]", "\"tool_choice\":\"required\"",
            "\"response_format\":{\"type\":\"json_object\"}", "\"service_tier\":\"flex\"", "\"top_k\":5",
            "\"reasoning_effort\":\"low\"", "\"some_future_field\":true"})
    void of_anyParameterThatCanChangeTheAnswer_changesTheBytes(String field) {
        assertThat(chat("{" + MSG + "," + field + "}")).isNotEqualTo(chat("{" + MSG + "}"));
    }

    @Test
    void of_differentMessagesOrModel_differ() {
        String base = chat("{" + MSG + "}");
        assertThat(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                + "{\"role\":\"user\",\"content\":\"Hi\"}]}")).isNotEqualTo(base);
        assertThat(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be long.\"},"
                + "{\"role\":\"user\",\"content\":\"Hi\"}]}"))
                .isNotEqualTo(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                        + "{\"role\":\"user\",\"content\":\"Hi\"}]}"));
        assertThat(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi \"}]}")).isNotEqualTo(base);
        assertThat(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).isNotEqualTo(base);
        assertThat(chat("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Hi\"}]}")).isNotEqualTo(base);
        assertThat(chat("{\"model\":\"m2\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")).isNotEqualTo(base);
    }

    @Test
    void of_differentToolLists_differ() {
        String a = "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}}]}";
        String b = "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"b\"}}]}";
        String ab = "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"b\"}}]}";
        assertThat(chat(a)).isNotEqualTo(chat(b)).isNotEqualTo(chat(ab));
    }

    @Test
    void of_stopSpellingsOfNothing_areTheSame() {
        String absent = chat("{" + MSG + "}");
        assertThat(chat("{" + MSG + ",\"stop\":null}")).isEqualTo(absent);
        assertThat(chat("{" + MSG + ",\"stop\":[]}")).isEqualTo(absent);
        assertThat(chat("{" + MSG + ",\"stop\":\"END\"}")).isEqualTo(chat("{" + MSG + ",\"stop\":[\"END\"]}"));
        assertThat(chat("{" + MSG + ",\"stop\":[\"A\",\"B\"]}")).isNotEqualTo(chat("{" + MSG + ",\"stop\":[\"B\",\"A\"]}"));
    }

    @Test
    void of_emptyLogitBias_isNoBias() {
        assertThat(chat("{" + MSG + ",\"logit_bias\":{}}")).isEqualTo(chat("{" + MSG + "}"));
    }

    @Test
    void of_maxTokensAndMaxCompletionTokens_areOneLimit() {
        assertThat(chat("{\"max_completion_tokens\":50}")).isEqualTo(chat("{\"max_tokens\":50}"));
        assertThat(chat("{\"max_completion_tokens\":50,\"max_tokens\":50.0}")).isEqualTo(chat("{\"max_tokens\":50}"));
        assertThat(chat("{\"max_completion_tokens\":50,\"max_tokens\":60}"))
                .as("two different limits stay apart").isNotEqualTo(chat("{\"max_tokens\":50}"))
                .isNotEqualTo(chat("{\"max_tokens\":60}"));
    }

    @Test
    void of_toolChoiceAndParallelDefaults_dependOnTools() {
        String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]";
        assertThat(chat("{" + tools + "}")).isEqualTo(chat("{" + tools + ",\"tool_choice\":\"auto\",\"parallel_tool_calls\":true}"));
        assertThat(chat("{" + tools + "}")).isNotEqualTo(chat("{" + tools + ",\"parallel_tool_calls\":false}"));
        assertThat(chat("{}")).isEqualTo(chat("{\"tool_choice\":\"none\"}"));
        assertThat(chat("{}")).isNotEqualTo(chat("{\"tool_choice\":\"auto\"}"));
    }

    @Test
    void of_completionDefaults() {
        String base = "{\"model\":\"m\",\"prompt\":\"Once\"}";
        assertThat(text(Dialect.COMPLETIONS, base, DEFAULTS)).isEqualTo(text(Dialect.COMPLETIONS,
                "{\"model\":\"m\",\"prompt\":\"Once\",\"max_tokens\":16,\"temperature\":1,\"top_p\":1,\"n\":1,"
                        + "\"echo\":false,\"best_of\":1,\"presence_penalty\":0,\"frequency_penalty\":0,\"stream\":true}",
                DEFAULTS));
        assertThat(text(Dialect.COMPLETIONS, base, DEFAULTS))
                .isNotEqualTo(text(Dialect.COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"Once\",\"max_tokens\":17}", DEFAULTS))
                .isNotEqualTo(text(Dialect.COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"Once\",\"suffix\":\"!\"}", DEFAULTS));
    }

    @Test
    void of_embeddingEncodingFormat_defaultsToFloatAndIsKeyed() {
        String base = "{\"model\":\"e\",\"input\":\"x\"}";
        assertThat(text(Dialect.EMBEDDINGS, base, DEFAULTS))
                .isEqualTo(text(Dialect.EMBEDDINGS, "{\"model\":\"e\",\"input\":\"x\",\"encoding_format\":\"float\"}", DEFAULTS))
                .isNotEqualTo(text(Dialect.EMBEDDINGS, "{\"model\":\"e\",\"input\":\"x\",\"encoding_format\":\"base64\"}", DEFAULTS))
                .isNotEqualTo(text(Dialect.EMBEDDINGS, "{\"model\":\"e\",\"input\":\"x\",\"dimensions\":256}", DEFAULTS));
        assertThat(text(Dialect.EMBEDDINGS, base, DEFAULTS)).doesNotContain("temperature");
    }

    @Test
    void embeddingItem_keysTheParametersAndTheItemApartFromAWholeRequest() {
        String item = item("{\"model\":\"e\",\"user\":\"u1\",\"encoding_format\":null}", "\"x\"", DEFAULTS);
        assertThat(item).isEqualTo("[\"embedding_item\",{\"encoding_format\":\"float\",\"input\":\"x\",\"model\":\"e\"}]");
        assertThat(item.substring("[\"embedding_item\"".length()))
                .as("the rules of a whole request, under another kind")
                .isEqualTo(text(Dialect.EMBEDDINGS, "{\"model\":\"e\",\"input\":\"x\"}", DEFAULTS)
                        .substring("[\"embedding\"".length()));
        assertThat(item("{\"model\":\"e\",\"encoding_format\":\"base64\"}", "\"x\"", DEFAULTS)).isNotEqualTo(item);
        assertThat(item("{\"model\":\"e\",\"dimensions\":256}", "\"x\"", DEFAULTS)).isNotEqualTo(item);
        assertThat(item("{\"model\":\"e\"}", "[1,2]", DEFAULTS)).isNotEqualTo(item("{\"model\":\"e\"}", "\"[1,2]\"", DEFAULTS));
        CanonicalOptions perUser = new CanonicalOptions(Normalize.NONE, true);
        assertThat(item("{\"model\":\"e\",\"user\":\"u1\"}", "\"x\"", perUser))
                .isNotEqualTo(item("{\"model\":\"e\",\"user\":\"u2\"}", "\"x\"", perUser));
        CanonicalOptions ws = new CanonicalOptions(Normalize.WHITESPACE, false);
        assertThat(item("{\"model\":\"e\"}", "\" a  b\"", ws)).isEqualTo(item("{\"model\":\"e\"}", "\"a b\"", ws));
    }

    @Test
    void embeddingItem_parametersWithTheInput_areRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CanonicalRequest.embeddingItem(
                body("{\"model\":\"e\",\"input\":[\"x\"]}"), JSON.getNodeFactory().textNode("x"), DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String item(String parameters, String itemJson, CanonicalOptions options) {
        try {
            return new String(CanonicalRequest.embeddingItem(body(parameters), JSON.readTree(itemJson), options),
                    StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(itemJson, e);
        }
    }

    @Test
    void of_sameBodyOnAnotherEndpoint_differs() {
        String body = "{\"model\":\"m\",\"prompt\":\"x\",\"input\":\"x\"}";
        assertThat(text(Dialect.COMPLETIONS, body, DEFAULTS)).isNotEqualTo(text(Dialect.EMBEDDINGS, body, DEFAULTS));
        assertThat(text(Dialect.CHAT, "{}", DEFAULTS)).startsWith("[\"chat\",");
    }

    @Test
    void of_textIsNeverAlteredWithoutNormalize() {
        String nfc = "caf\u00e9";
        String nfd = "cafe\u0301";
        assertThat(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"" + nfc + "\"}]}"))
                .isNotEqualTo(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"" + nfd + "\"}]}"));
        assertThat(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"a  b\"}]}"))
                .isNotEqualTo(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"a b\"}]}"));
    }

    @Test
    void of_whitespaceNormalize_collapsesAuthoredTextOnly() {
        CanonicalOptions ws = new CanonicalOptions(Normalize.WHITESPACE, false);
        String messy = "{\"messages\":[{\"role\":\"system\",\"content\":\"  Be\\n\\n brief \"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\\tthere\\u00a0 you\"}]},"
                + "{\"role\":\"assistant\",\"content\":\"a  b\"}]}";
        String tidy = "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi there you\"}]},"
                + "{\"role\":\"assistant\",\"content\":\"a  b\"}]}";
        assertThat(text(Dialect.CHAT, messy, ws)).isEqualTo(text(Dialect.CHAT, tidy, ws));
        assertThat(text(Dialect.CHAT, messy.replace("a  b", "a b"), ws))
                .as("assistant text is model output, never normalised").isNotEqualTo(text(Dialect.CHAT, messy, ws));
        assertThat(text(Dialect.CHAT, tidy.replace("Be brief", "be brief"), ws)).isNotEqualTo(text(Dialect.CHAT, tidy, ws));
        assertThat(text(Dialect.COMPLETIONS, "{\"prompt\":[\" a  b\",[1,2]]}", ws))
                .isEqualTo(text(Dialect.COMPLETIONS, "{\"prompt\":[\"a b\",[1,2]]}", ws));
        assertThat(text(Dialect.EMBEDDINGS, "{\"input\":\"a\\n b\"}", ws))
                .isEqualTo(text(Dialect.EMBEDDINGS, "{\"input\":\"a b\"}", ws));
    }

    @Test
    void of_caseNormalize_alsoLowercases() {
        CanonicalOptions caseless = new CanonicalOptions(Normalize.CASE, false);
        assertThat(text(Dialect.CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\" HELLO  World\"}]}", caseless))
                .isEqualTo(text(Dialect.CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"hello world\"}]}", caseless));
        assertThat(text(Dialect.CHAT, "{\"model\":\"M\"}", caseless))
                .as("only authored text").isNotEqualTo(text(Dialect.CHAT, "{\"model\":\"m\"}", caseless));
    }

    @Test
    void of_stringEscapes_areFixedAndLossless() {
        assertThat(chat("{\"model\":\"a\\\"b\\\\c\\n\\u0001\\u00e9\"}")).contains("\"model\":\"a\\\"b\\\\c\\u000a\\u0001\u00e9\"");
        assertThat(chat("{\"model\":\"\\ud800\"}")).contains("\"model\":\"\\ud800\"")
                .isNotEqualTo(chat("{\"model\":\"\\udc00\"}")).isNotEqualTo(chat("{\"model\":\"?\"}"));
        assertThat(chat("{\"model\":\"\\ud83d\\ude00\"}")).contains("\"model\":\"\uD83D\uDE00\"");
    }

    @Test
    void of_leavesTheBodyUnchanged() {
        ObjectNode body = body("{\"stream\":true,\"stop\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\" A \"}]}");
        ObjectNode before = body.deepCopy();
        CanonicalRequest.of(Dialect.CHAT, body, new CanonicalOptions(Normalize.CASE, false));
        assertThat(body).isEqualTo(before);
    }
}
