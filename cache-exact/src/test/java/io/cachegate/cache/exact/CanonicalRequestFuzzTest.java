package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the canonical form and the key built on it with arbitrary JSON objects. Properties: it never throws; it
 * leaves the request untouched; the key does not change when the object's keys come in another order; and the
 * canonical form is a fixed point (canonicalising the canonical request again gives the same bytes).
 */
class CanonicalRequestFuzzTest {

    /** Reads bodies as the gateway's parser does (duplicates refused); NaN/Infinity only to read our own output. */
    private static final ObjectMapper STRICT = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
    /**
     * Reads canonical output back with exact numbers: it spells an integer of more than 21 digits with an exponent
     * ({@code 10000000000000000000003e0}), which a double reader would round (seed big-integer-exponent-form).
     */
    private static final ObjectMapper OWN_OUTPUT = new ObjectMapper(JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
    private static final Dialect[] KINDS = {Dialect.CHAT, Dialect.COMPLETIONS, Dialect.EMBEDDINGS};
    private static final ExactKeyFactory KEYS = new ExactKeyFactory();

    @FuzzTest(maxDuration = "10s")
    void canonical_anyObject_stableUnderKeyOrder_andAFixedPoint(FuzzedDataProvider data) throws IOException {
        Dialect kind = data.pickValue(KINDS);
        CanonicalOptions options = new CanonicalOptions(data.pickValue(Normalize.values()), data.consumeBoolean());
        JsonNode parsed;
        try {
            parsed = STRICT.readTree(data.consumeRemainingAsBytes());
        } catch (IOException notJson) {
            return;
        }
        if (!(parsed instanceof ObjectNode body)) {
            return;
        }
        ObjectNode before = body.deepCopy();
        byte[] canonical = CanonicalRequest.of(kind, body, options);
        assertThat(body).as("the request is left unchanged").isEqualTo(before);

        byte[] reordered = CanonicalRequest.of(kind, (ObjectNode) reversed(body), options);
        assertThat(KEYS.key("t", "m@v1", "ctx", reordered)).isEqualTo(KEYS.key("t", "m@v1", "ctx", canonical));
        assertThat(new String(reordered, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(new String(canonical, java.nio.charset.StandardCharsets.UTF_8));

        JsonNode envelope = OWN_OUTPUT.readTree(canonical);
        assertThat(envelope.get(0).asText()).isEqualTo(kind.keyName());
        byte[] again = CanonicalRequest.of(kind, (ObjectNode) envelope.get(1), options);
        assertThat(new String(again, java.nio.charset.StandardCharsets.UTF_8))
                .as("canonical form is a fixed point")
                .isEqualTo(new String(canonical, java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The same tree with every object's keys inserted in reverse order. */
    private static JsonNode reversed(JsonNode node) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
            Collections.reverse(fields);
            ObjectNode copy = nodes.objectNode();
            fields.forEach(f -> copy.set(f.getKey(), reversed(f.getValue())));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = nodes.arrayNode();
            node.forEach(item -> copy.add(reversed(item)));
            return copy;
        }
        return node;
    }
}
