package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.testkit.Poll;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The npm {@code openai} package's {@code client.embeddings.create} through the gateway
 * ({@code clients/node/embeddings.mjs}): a half-seen batch sends only its unseen items upstream and its merged
 * answer equals the backend's, vector for vector, in the package's default encoding (base64) and in float.
 * Skipped only where node or the client's {@code node_modules} ({@code npm ci} in {@code clients/node}) are missing.
 */
@EnabledIf(value = "io.cachegate.gateway.NodeClients#installed",
        disabledReason = "node, or the openai package (npm ci in clients/node), is missing")
class EmbeddingItemsNodeIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator();

    @Test
    void npmOpenAi_halfSeenBatch_sendsOnlyUnseenItemsAndEqualsTheBackend() throws Exception {
        String gatewayUrl = "http://127.0.0.1:" + fixture.port() + "/v1";
        String run = nonce();
        long before = fixture.sim().stats().embeddingInputs();
        JsonNode firsts = NodeClients.run("embeddings.mjs", "first", gatewayUrl, fixture.sim().baseUrl() + "/v1", "llama-3.1-8b", run);
        // The items are stored after the answer has left: wait for both formats' six.
        assertThat(Poll.until(Duration.ofSeconds(10), () -> written() >= 12)).as("items stored").isTrue();
        JsonNode mergeds = NodeClients.run("embeddings.mjs", "merged", gatewayUrl, fixture.sim().baseUrl() + "/v1", "llama-3.1-8b", run);

        for (String format : List.of("default", "float")) {
            JsonNode first = firsts.path(format);
            JsonNode merged = mergeds.path(format);
            assertThat(first.path("cache").asText()).as(format).isEqualTo("MISS");
            assertThat(first.path("items").asText()).isEqualTo("0/6");
            assertThat(first.path("sameAsBackend").asBoolean()).as(format + ": " + first).isTrue();
            assertThat(first.path("promptTokens")).isEqualTo(first.path("backendPromptTokens"));
            assertThat(merged.path("cache").asText()).as(format).isEqualTo("PARTIAL");
            assertThat(merged.path("items").asText()).isEqualTo("6/12");
            assertThat(merged.path("count").asInt()).isEqualTo(12);
            assertThat(merged.path("sameAsBackend").asBoolean()).as(format + ": " + merged).isTrue();
            assertThat(merged.path("promptTokens")).isEqualTo(merged.path("backendPromptTokens"));
        }
        // Through the gateway 6 then 6 per format; directly 6 then 12 per format.
        assertThat(fixture.sim().stats().embeddingInputs() - before).isEqualTo(2 * (6 + 6) + 2 * (6 + 12));
    }

    private static long written() {
        try {
            return (long) CacheCalls.metric(fixture.gateway(), "cachegate_cache_entries_written_total");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
