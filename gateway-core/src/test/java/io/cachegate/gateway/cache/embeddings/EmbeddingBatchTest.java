package io.cachegate.gateway.cache.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.CacheKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class EmbeddingBatchTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A key per item text: equal items get equal keys. */
    static final Function<JsonNode, CacheKey> KEY_OF = item -> {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(item.toString().getBytes(StandardCharsets.UTF_8));
            return new CacheKey("t", "v", HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    };

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    @Test
    void of_listOfTexts_keepsPositionsAndDeduplicates() {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"a\",\"b\",\"a\",\"c\",\"b\"]"), KEY_OF);

        assertThat(batch.size()).isEqualTo(5);
        assertThat(batch.distinctCount()).isEqualTo(3);
        assertThat(new int[] {batch.distinctOf(0), batch.distinctOf(1), batch.distinctOf(2), batch.distinctOf(3),
            batch.distinctOf(4)}).containsExactly(0, 1, 0, 2, 1);
        assertThat(batch.distinctItem(2).textValue()).isEqualTo("c");
    }

    @Test
    void of_listOfTokenArrays_isSplit() {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[[1,2,3],[4],[1,2,3]]"), KEY_OF);

        assertThat(batch.size()).isEqualTo(3);
        assertThat(batch.distinctCount()).isEqualTo(2);
        assertThat(batch.tokenWeight(0)).as("a token array's length is its exact count").isEqualTo(3);
    }

    @Test
    void of_notAListOfItems_isLeftWhole() {
        assertThat(EmbeddingBatch.of(json("\"one text\""), KEY_OF)).isNull();
        assertThat(EmbeddingBatch.of(json("[1,2,3]"), KEY_OF)).as("one token array").isNull();
        assertThat(EmbeddingBatch.of(json("[]"), KEY_OF)).isNull();
        assertThat(EmbeddingBatch.of(json("[\"a\",[1]]"), KEY_OF)).as("mixed").isNull();
        assertThat(EmbeddingBatch.of(json("[[1],[]]"), KEY_OF)).as("an empty token array").isNull();
        assertThat(EmbeddingBatch.of(json("[[1.5]]"), KEY_OF)).as("not a token id").isNull();
        assertThat(EmbeddingBatch.of(json("[\"a\",null]"), KEY_OF)).isNull();
    }

    @Test
    void of_moreThanOpenAisLimit_isLeftWhole() {
        StringBuilder many = new StringBuilder("[");
        for (int i = 0; i <= EmbeddingBatch.MAX_ITEMS; i++) {
            many.append(i == 0 ? "" : ",").append("\"t").append(i).append('"');
        }
        assertThat(EmbeddingBatch.of(json(many + "]"), KEY_OF)).isNull();
        assertThat(EmbeddingBatch.of(json(many.substring(0, many.lastIndexOf(",")) + "]"), KEY_OF).size())
                .isEqualTo(EmbeddingBatch.MAX_ITEMS);
    }

    @Test
    void tokenWeight_ofText_isAboutFourBytesAToken() {
        EmbeddingBatch batch = EmbeddingBatch.of(json("[\"\",\"abcdefgh\",\"é\"]"), KEY_OF);
        assertThat(batch.tokenWeight(0)).isEqualTo(1);
        assertThat(batch.tokenWeight(1)).isEqualTo(2);
        assertThat(batch.tokenWeight(2)).isEqualTo(1);
    }
}
