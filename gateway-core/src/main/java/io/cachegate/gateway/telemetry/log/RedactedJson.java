package io.cachegate.gateway.telemetry.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import java.io.IOException;
import java.util.Map;

/**
 * Writes a JSON tree with every string value passed through {@link SensitiveDataDetector#redact}: a request body
 * as the logs may show it. Numbers, booleans and field names are kept (the request's shape is what the analyzer
 * and a reader need). The tree came through the gateway's parser, whose depth limit bounds the recursion.
 */
final class RedactedJson {

    private RedactedJson() {
    }

    static void write(JsonNode node, SensitiveDataDetector detector, JsonGenerator out) throws IOException {
        if (node.isTextual()) {
            out.writeString(detector.redact(node.textValue()));
        } else if (node.isObject()) {
            out.writeStartObject();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                out.writeFieldName(field.getKey());
                write(field.getValue(), detector, out);
            }
            out.writeEndObject();
        } else if (node.isArray()) {
            out.writeStartArray();
            for (JsonNode item : node) {
                write(item, detector, out);
            }
            out.writeEndArray();
        } else {
            out.writeTree(node);
        }
    }
}
