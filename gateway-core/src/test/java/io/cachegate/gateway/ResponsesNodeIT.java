package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The npm {@code openai} package's {@code client.responses.create}, streamed and not, through the gateway
 * ({@code clients/node/responses.mjs}): the second of two identical calls is a hit with the first one's text.
 * Skipped only where node or the client's {@code node_modules} (installed by {@code npm ci}, as .ci/run does) are
 * missing.
 */
@EnabledIf(value = "io.cachegate.gateway.NodeClients#installed",
        disabledReason = "node, or the openai package (npm ci in clients/node), is missing")
class ResponsesNodeIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            tenants:
              - {id: acme, api_keys: [acme-key]}
            """);

    @Test
    void npmOpenAi_responsesCreate_wholeAndStreamed_missThenHitWithTheSameText() throws Exception {
        JsonNode result = NodeClients.run("responses.mjs", "http://127.0.0.1:" + fixture.port() + "/v1", "acme-key", "llama-3.1-8b",
                "What does a gateway cache? " + nonce());

        JsonNode whole = result.path("whole");
        assertThat(whole.path(0).path("cache").asText()).isEqualTo("MISS");
        assertThat(whole.path(1).path("cache").asText()).isEqualTo("HIT");
        assertThat(whole.path(1).path("text").asText()).isEqualTo(whole.path(0).path("text").asText()).isNotBlank();
        assertThat(whole.path(1).path("id").asText()).isEqualTo(whole.path(0).path("id").asText());
        JsonNode streamed = result.path("streamed");
        assertThat(streamed.path(0).path("cache").asText()).isEqualTo("MISS");
        assertThat(streamed.path(1).path("cache").asText()).isEqualTo("HIT");
        assertThat(streamed.path(1).path("text").asText()).isEqualTo(streamed.path(0).path("text").asText())
                .isNotBlank();
        for (JsonNode call : streamed) {
            assertThat(call.path("first").asText()).isEqualTo("response.created");
            assertThat(call.path("last").asText()).isEqualTo("response.completed");
        }
    }
}
