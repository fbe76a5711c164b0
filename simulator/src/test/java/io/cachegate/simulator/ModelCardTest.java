package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.get;
import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A model's card in {@code /v1/models}: set at start, changed while running, and carried by the answers. */
class ModelCardTest {

    private static final String CHAT = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"max_tokens\":3,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void defaultCard_isVllms_rootIsIdNoRevisionNoFingerprint() {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults())) {
            JsonNode card = card(sim, "llama-3.1-8b");
            assertThat(card.get("root").asText()).isEqualTo("llama-3.1-8b");
            assertThat(card.has("revision")).isFalse();
            assertThat(json(post(sim, "/v1/chat/completions", CHAT).body()).has("system_fingerprint")).isFalse();
        }
    }

    @Test
    void initialCard_fromOptions_isReportedAndFingerprintsAnswers() {
        SimulatorOptions options = SimulatorOptions.defaults()
                .withModelCards(List.of(ModelCard.parse("llama-3.1-8b=meta-llama/Llama-3.1-8B@r1")));
        try (BackendSimulator sim = BackendSimulator.start(options)) {
            JsonNode card = card(sim, "llama-3.1-8b");
            assertThat(card.get("root").asText()).isEqualTo("meta-llama/Llama-3.1-8B");
            assertThat(card.get("revision").asText()).isEqualTo("r1");
            assertThat(card(sim, "qwen2.5-0.5b").has("revision")).isFalse();
            assertThat(json(post(sim, "/v1/chat/completions", CHAT).body()).get("system_fingerprint").asText())
                    .isEqualTo("r1");
        }
    }

    @Test
    void post_changesTheCard_laterAnswersCarryTheNewRevision_sameText() {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults())) {
            JsonNode before = json(post(sim, "/v1/chat/completions", CHAT).body());

            HttpResponse<String> set = post(sim, "/sim/models/llama-3.1-8b", "{\"revision\":\"r2\"}");

            assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
            assertThat(json(set.body()).get("revision").asText()).isEqualTo("r2");
            assertThat(card(sim, "llama-3.1-8b").get("revision").asText()).isEqualTo("r2");
            JsonNode after = json(post(sim, "/v1/chat/completions", CHAT).body());
            assertThat(after.get("system_fingerprint").asText()).isEqualTo("r2");
            assertThat(text(after)).isEqualTo(text(before)); // only the card tells the versions apart
            List<String> chunks = sseData(post(sim, "/v1/chat/completions",
                    CHAT.replace("{", "{\"stream\":true,")).body());
            assertThat(json(chunks.get(0)).get("system_fingerprint").asText()).isEqualTo("r2");
        }
    }

    @Test
    void post_rootOnly_keepsRevision_nullRevisionRemovesIt() {
        SimulatorOptions options = SimulatorOptions.defaults()
                .withModelCards(List.of(ModelCard.parse("llama-3.1-8b=@r1")));
        try (BackendSimulator sim = BackendSimulator.start(options)) {
            post(sim, "/sim/models/llama-3.1-8b", "{\"root\":\"/models/llama-v2\"}");
            assertThat(card(sim, "llama-3.1-8b").get("revision").asText()).isEqualTo("r1");

            post(sim, "/sim/models/llama-3.1-8b", "{\"revision\":null}");

            JsonNode card = card(sim, "llama-3.1-8b");
            assertThat(card.get("root").asText()).isEqualTo("/models/llama-v2");
            assertThat(card.has("revision")).isFalse();
            assertThat(json(post(sim, "/v1/chat/completions", CHAT).body()).get("system_fingerprint").asText())
                    .isEqualTo("/models/llama-v2");
        }
    }

    @Test
    void post_badInput_isA400WithTheReason_cardUnchanged() {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults())) {
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{\"revision\":"), 400, "Malformed JSON");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "[]"), 400, "JSON object");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{}"), 400, "root and/or revision");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{\"revison\":\"r2\"}"), 400, "Unknown field `revison`");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{\"revision\":2}"), 400, "revision must be a string");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{\"revision\":\"\"}"), 400, "non-empty");
            assertError(post(sim, "/sim/models/llama-3.1-8b", "{\"root\":null}"), 400, "root must be a non-empty");
            assertError(post(sim, "/sim/models/gpt-5", "{\"revision\":\"r2\"}"), 404, "`gpt-5` does not exist");
            assertError(get(sim, "/sim/models/llama-3.1-8b"), 405, "use POST");
            assertThat(card(sim, "llama-3.1-8b").has("revision")).isFalse();
        }
    }

    @Test
    void parse_cliForms() {
        assertThat(ModelCard.parse("m=@r2")).isEqualTo(new ModelCard("m", "m", "r2"));
        assertThat(ModelCard.parse("m=org/M")).isEqualTo(new ModelCard("m", "org/M", null));
        assertThat(ModelCard.parse("m=org/M@r2")).isEqualTo(new ModelCard("m", "org/M", "r2"));
        assertThatThrownBy(() -> ModelCard.parse("r2")).hasMessageContaining("ID=[ROOT][@REVISION]");
        assertThatThrownBy(() -> ModelCard.parse("m=@")).hasMessageContaining("revision of model m");
        assertThatThrownBy(() -> SimulatorOptions.defaults().withModelCards(List.of(ModelCard.parse("x=@r1"))))
                .hasMessageContaining("model card x is not a served model");
    }

    private static void assertError(HttpResponse<String> response, int status, String message) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(json(response.body()).get("error").get("message").asText()).contains(message);
    }

    private static JsonNode card(BackendSimulator sim, String id) {
        for (JsonNode card : json(get(sim, "/v1/models").body()).get("data")) {
            if (card.get("id").asText().equals(id)) {
                return card;
            }
        }
        throw new AssertionError("no card for " + id);
    }

    private static String text(JsonNode answer) {
        return answer.get("choices").get(0).get("message").get("content").asText();
    }
}
