package io.cachegate.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** The one Jackson mapper of the benchmarks: request bodies, scraped answers and the JSON reports. */
final class BenchJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);
    private static final ObjectMapper PRETTY = MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchJson() {
    }

    static ObjectMapper mapper() {
        return MAPPER;
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Records (a {@code BenchReport}), maps and lists as a tree, to put into a report. */
    static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }

    /** Compact bytes, as request bodies are sent. */
    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Indented text, as reports are printed. */
    static String pretty(JsonNode node) {
        try {
            return PRETTY.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
