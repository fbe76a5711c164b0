package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The npm {@code openai} package's {@code client.responses.create}, streamed and not, through the gateway
 * ({@code clients/node/responses.mjs}): the second of two identical calls is a hit with the first one's text.
 * Skipped only where node or the client's {@code node_modules} (installed by {@code npm ci}, as .ci/run does) are
 * missing.
 */
class ResponsesNodeIT {

    private static BackendSimulator sim;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        NodeClients.assumeInstalled();
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        gateway = Gateway.start(TestPolicies.parse("""
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                tenants:
                  - {id: acme, api_keys: [acme-key]}
                cache:
                  exact: {store: memory, ttl: 1h}
                """.formatted(sim.baseUrl())));
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, sim);
    }

    @Test
    void npmOpenAi_responsesCreate_wholeAndStreamed_missThenHitWithTheSameText() throws Exception {
        JsonNode result = NodeClients.run("responses.mjs", "http://127.0.0.1:" + gateway.port() + "/v1", "acme-key", "llama-3.1-8b",
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
