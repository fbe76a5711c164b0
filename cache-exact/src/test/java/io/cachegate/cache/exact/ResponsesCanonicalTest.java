package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.CanonicalRequestTest.body;
import static io.cachegate.cache.exact.CanonicalRequestTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Normalize;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResponsesCanonicalTest {

    private static final String BASE = "\"model\":\"m\",\"input\":\"Hi\"";

    private static String response(String json) {
        return text(Dialect.RESPONSES, json, CanonicalOptions.DEFAULTS);
    }

    @Test
    void of_responseDefaults_areFilledAndRenderedInOneSpelling() {
        assertThat(response("{" + BASE + "}")).isEqualTo("[\"response\",{\"background\":false,\"input\":\"Hi\","
                + "\"model\":\"m\",\"parallel_tool_calls\":true,\"service_tier\":\"auto\",\"store\":true,"
                + "\"temperature\":1,\"text\":{\"format\":{\"type\":\"text\"}},\"tool_choice\":\"auto\","
                + "\"top_p\":1,\"truncation\":\"disabled\"}]");
    }

    @Test
    void of_explicitDefaultsAndNulls_sameBytesAsOmitted() {
        assertThat(response("{" + BASE + ",\"temperature\":1.0,\"top_p\":1,\"store\":true,\"background\":false,"
                + "\"parallel_tool_calls\":true,\"tool_choice\":\"auto\",\"truncation\":\"disabled\","
                + "\"text\":{\"format\":{\"type\":\"text\"}},\"metadata\":{},\"instructions\":null,"
                + "\"max_output_tokens\":null,\"previous_response_id\":null,\"service_tier\":\"auto\"}"))
                .isEqualTo(response("{" + BASE + "}"));
        assertThat(response("{" + BASE + ",\"text\":{\"verbosity\":\"low\"}}"))
                .as("a text setting without a format gets the default format")
                .contains("\"text\":{\"format\":{\"type\":\"text\"},\"verbosity\":\"low\"}");
    }

    @Test
    void of_streamIsTransportOnly() {
        assertThat(response("{" + BASE + ",\"stream\":true,\"stream_options\":{\"include_obfuscation\":false}}"))
                .isEqualTo(response("{" + BASE + "}"));
    }

    @Test
    void of_echoedFieldsStayInTheKey() {
        // A response object echoes these: a hit must never show one client's metadata or user to another.
        String plain = response("{" + BASE + "}");
        for (String field : new String[] {"\"metadata\":{\"app\":\"a\"}", "\"user\":\"u1\"", "\"store\":false",
                "\"safety_identifier\":\"s\"", "\"prompt_cache_key\":\"k\"", "\"instructions\":\"be brief\""}) {
            assertThat(response("{" + BASE + "," + field + "}")).as(field).isNotEqualTo(plain);
        }
    }

    @Test
    void of_answerChangingFields_differ() {
        String plain = response("{" + BASE + "}");
        assertThat(response("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"))
                .as("a string input and a one-message list are not unified").isNotEqualTo(plain);
        assertThat(response("{" + BASE + ",\"max_output_tokens\":16}")).isNotEqualTo(plain);
        assertThat(response("{" + BASE + ",\"text\":{\"format\":{\"type\":\"json_object\"}}}")).isNotEqualTo(plain);
        assertThat(response("{" + BASE + ",\"tools\":[]}")).as("tools: [] is kept apart from absent")
                .isNotEqualTo(plain);
        assertThat(response("{" + BASE + ",\"previous_response_id\":\"resp_1\"}")).isNotEqualTo(plain);
        assertThat(text(Dialect.CHAT, "{" + BASE + "}", CanonicalOptions.DEFAULTS))
                .as("the same body on another endpoint").isNotEqualTo(plain);
    }

    @Test
    void of_normalize_touchesAuthoredTextOnly() {
        CanonicalOptions whitespace = new CanonicalOptions(Normalize.WHITESPACE, false);
        String messy = "{\"model\":\"m\",\"instructions\":\" be   brief \",\"input\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"Hi   there\"}]},{\"role\":\"assistant\","
                + "\"content\":\"a   b\"}]}";
        String tidy = "{\"model\":\"m\",\"instructions\":\"be brief\",\"input\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"Hi there\"}]},{\"role\":\"assistant\","
                + "\"content\":\"a   b\"}]}";
        assertThat(text(Dialect.RESPONSES, messy, whitespace)).isEqualTo(text(Dialect.RESPONSES, tidy, whitespace));
        assertThat(text(Dialect.RESPONSES, "{\"model\":\"m\",\"input\":\"a  b\"}", whitespace))
                .isEqualTo(text(Dialect.RESPONSES, "{\"model\":\"m\",\"input\":\"a b\"}", whitespace));
        assertThat(response(messy)).as("off by default").isNotEqualTo(response(tidy));
    }

    @Test
    void of_leavesTheBodyUnchanged() {
        var request = body("{" + BASE + ",\"stream\":true,\"temperature\":null}");
        String before = request.toString();
        CanonicalRequest.of(Dialect.RESPONSES, request, CanonicalOptions.DEFAULTS);
        assertThat(request.toString()).isEqualTo(before);
    }

    @Test
    void usesServerState_previousResponseConversationPromptOrItemReference() {
        assertThat(ResponsesCanonical.usesServerState(body("{" + BASE + "}"))).isFalse();
        assertThat(ResponsesCanonical.usesServerState(body("{" + BASE + ",\"previous_response_id\":null}"))).isFalse();
        assertThat(ResponsesCanonical.usesServerState(body("{" + BASE + ",\"previous_response_id\":\"r\"}"))).isTrue();
        assertThat(ResponsesCanonical.usesServerState(body("{" + BASE + ",\"conversation\":\"c\"}"))).isTrue();
        assertThat(ResponsesCanonical.usesServerState(body("{" + BASE + ",\"prompt\":{\"id\":\"p\"}}"))).isTrue();
        assertThat(ResponsesCanonical.usesServerState(body("{\"model\":\"m\",\"input\":[{\"type\":\"item_reference\","
                + "\"id\":\"msg_1\"}]}"))).isTrue();
    }

    @Test
    void decide_serverState_bypassesUnlessTheRouteAllowsIt() {
        var body = body("{" + BASE + ",\"temperature\":0,\"previous_response_id\":\"r\"}");
        var route = new RouteCachePolicy(true, false, false, Normalize.NONE, Set.of("stop"), false, false);
        var allowing = new RouteCachePolicy(true, false, false, Normalize.NONE, Set.of("stop"), false, true);

        assertThat(Cacheability.decide(Dialect.RESPONSES, body, route, CacheControl.parse(null)))
                .isEqualTo(CacheDecision.bypass(BypassReason.SERVER_STATE));
        assertThat(Cacheability.decide(Dialect.RESPONSES, body, allowing, CacheControl.parse(null)))
                .isEqualTo(CacheDecision.USE);
        assertThat(Cacheability.decide(Dialect.RESPONSES, body("{" + BASE + "}"), route, CacheControl.parse(null)))
                .as("sampled, as chat").isEqualTo(CacheDecision.bypass(BypassReason.NONDETERMINISTIC));
        assertThat(Cacheability.decide(Dialect.RESPONSES, body("{" + BASE + ",\"seed\":3}"), route,
                CacheControl.parse(null))).isEqualTo(CacheDecision.USE);
    }
}
