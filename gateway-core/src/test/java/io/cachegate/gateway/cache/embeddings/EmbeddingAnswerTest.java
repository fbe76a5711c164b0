package io.cachegate.gateway.cache.embeddings;

import static io.cachegate.gateway.cache.embeddings.EmbeddingBatchTest.KEY_OF;
import static io.cachegate.gateway.cache.embeddings.EmbeddingBatchTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheEntry;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EmbeddingAnswerTest {

    /** The stored item of {@code embedding} (JSON) with {@code tokens}, as the capture would have written it. */
    private static CacheEntry entry(String embedding, int tokens) {
        return new CacheEntry(EmbeddingAnswer.itemBody("emb-model", json(embedding)), 1_000, "v", "origin-1", tokens,
                0, Set.of());
    }

    private static JsonNode parse(byte[] body) {
        return json(new String(body, StandardCharsets.UTF_8));
    }

    @Test
    void merge_partialBatch_putsEveryVectorAtItsPositionWithItsIndex() throws Exception {
        // Positions: a b c d; b and d cached; a and c sent, in that order.
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"a\",\"b\",\"c\",\"d\"]"), KEY_OF);
        CacheEntry[] entries = {null, entry("[0.2]", 5), null, entry("[0.4]", 7)};
        ObjectNode[] cached = {null, EmbeddingAnswer.storedItem(entries[1]), null, EmbeddingAnswer.storedItem(entries[3])};
        // The backend may list its data in any order: the index says which input each vector is for.
        byte[] upstream = ("{\"id\":\"embd-1\",\"object\":\"list\",\"model\":\"emb-model\",\"data\":["
                + "{\"index\":1,\"object\":\"embedding\",\"embedding\":[0.3]},"
                + "{\"index\":0,\"object\":\"embedding\",\"embedding\":[0.1]}],"
                + "\"usage\":{\"prompt_tokens\":4,\"total_tokens\":4}}").getBytes(StandardCharsets.UTF_8);

        EmbeddingAnswer.Merged merged = EmbeddingAnswer.merge(upstream, batch, cached, entries, new int[] {0, 2});

        JsonNode answer = parse(merged.body());
        assertThat(answer.path("id").asText()).as("the backend's other fields are kept").isEqualTo("embd-1");
        assertThat(answer.path("data")).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(answer.path("data").get(i).path("index").asInt()).isEqualTo(i);
            assertThat(answer.path("data").get(i).path("object").asText()).isEqualTo("embedding");
            assertThat(answer.path("data").get(i).path("embedding").get(0).asDouble()).isEqualTo(0.1 * (i + 1), offset(1e-9));
        }
        // Usage: a and c share the backend's 4 tokens (2 each, equal weights), b and d keep their stored 5 and 7.
        assertThat(answer.path("usage").path("prompt_tokens").asInt()).isEqualTo(2 + 5 + 2 + 7);
        assertThat(answer.path("usage").path("total_tokens").asInt()).isEqualTo(16);
        assertThat(merged.fresh()[0]).isNotNull();
        assertThat(merged.fresh()[1]).as("cached: not stored again").isNull();
        assertThat(merged.freshTokens()[0] + merged.freshTokens()[2]).isEqualTo(4);
        assertThat(merged.model()).isEqualTo("emb-model");
    }

    @Test
    void merge_duplicates_sentOnceAndRepeatedAtEveryPosition() throws Exception {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"x\",\"y\",\"x\",\"x\"]"), KEY_OF);
        byte[] upstream = ("{\"object\":\"list\",\"model\":\"m\",\"data\":["
                + "{\"index\":0,\"embedding\":\"AACAPw==\"},{\"index\":1,\"embedding\":\"AAAAQA==\"}],"
                + "\"usage\":{\"prompt_tokens\":6,\"total_tokens\":6}}").getBytes(StandardCharsets.UTF_8);

        EmbeddingAnswer.Merged merged = EmbeddingAnswer.merge(upstream, batch, new ObjectNode[2], new CacheEntry[2],
                new int[] {0, 1});

        JsonNode data = parse(merged.body()).path("data");
        assertThat(data).hasSize(4);
        assertThat(data.get(0).path("embedding").asText()).as("base64 kept as sent").isEqualTo("AACAPw==");
        assertThat(data.get(1).path("embedding").asText()).isEqualTo("AAAAQA==");
        assertThat(data.get(2).path("embedding").asText()).isEqualTo("AACAPw==");
        assertThat(data.get(3).path("embedding").asText()).isEqualTo("AACAPw==");
        assertThat(data.get(3).path("index").asInt()).isEqualTo(3);
        // x and y share 6 tokens (3 each); x counts at its three positions, as the backend would have counted it.
        assertThat(parse(merged.body()).path("usage").path("prompt_tokens").asInt()).isEqualTo(3 * 3 + 3);
    }

    @Test
    void merge_answerNotForTheItemsSent_isRefused() {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"x\",\"y\"]"), KEY_OF);
        ObjectNode[] none = new ObjectNode[2];
        CacheEntry[] noEntries = new CacheEntry[2];
        int[] both = {0, 1};
        String one = "{\"data\":[{\"index\":0,\"embedding\":[1]}]}";
        String repeated = "{\"data\":[{\"index\":0,\"embedding\":[1]},{\"index\":0,\"embedding\":[2]}]}";
        String outOfRange = "{\"data\":[{\"index\":0,\"embedding\":[1]},{\"index\":2,\"embedding\":[2]}]}";
        String noVector = "{\"data\":[{\"index\":0,\"embedding\":[1]},{\"index\":1}]}";
        for (String body : new String[] {one, repeated, outOfRange, noVector, "[]", "not json"}) {
            assertThatThrownBy(() -> EmbeddingAnswer.merge(body.getBytes(StandardCharsets.UTF_8), batch, none,
                    noEntries, both)).as(body).isInstanceOf(EmbeddingAnswer.MergeException.class);
        }
    }

    @Test
    void fromCache_everyItemCached_sumsStoredTokensPerPosition() {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"b\",\"a\",\"b\"]"), KEY_OF);
        CacheEntry[] entries = {entry("[2.0]", 3), entry("[1.0]", 4)};
        ObjectNode[] cached = {EmbeddingAnswer.storedItem(entries[0]), EmbeddingAnswer.storedItem(entries[1])};

        JsonNode answer = parse(EmbeddingAnswer.fromCache(batch, cached, entries));

        assertThat(answer.path("object").asText()).isEqualTo("list");
        assertThat(answer.path("model").asText()).isEqualTo("emb-model");
        assertThat(answer.path("data").findValuesAsText("index")).containsExactly("0", "1", "2");
        assertThat(answer.path("data").get(1).path("embedding").get(0).asDouble()).isEqualTo(1.0);
        assertThat(answer.path("data").get(2).path("embedding").get(0).asDouble()).isEqualTo(2.0);
        assertThat(answer.path("usage").path("prompt_tokens").asInt()).isEqualTo(3 + 4 + 3);
    }

    @Test
    void storedItem_ofAnotherShape_isNull() {
        CacheEntry wholeAnswer = new CacheEntry("{\"object\":\"list\",\"data\":[]}".getBytes(StandardCharsets.UTF_8),
                0, "v", "o", 1, 0, Set.of());
        assertThat(EmbeddingAnswer.storedItem(wholeAnswer)).isNull();
        assertThat(EmbeddingAnswer.storedItem(entry("\"QUJD\"", 1))).isNotNull();
    }
}
