package io.cachegate.cli.analyze;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.JsonLimits;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.Exchange;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Reads one line of a request log: an OpenAI request body; or {@code {"tenant": …, "body": {…}}} (what the
 * gateway's request sampling writes, and its access log with {@code include_text}); or, with a
 * text field, any JSON object whose text field becomes the single user message of a chat request. The endpoint
 * follows from the body ({@code messages}: chat, {@code prompt}: completions, {@code input}: embeddings); the body
 * is then validated by the gateway's own {@link OpenAiRequestParser}, so a line counts as malformed exactly when
 * the gateway would have answered 400.
 */
final class RequestLogParser {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpenAiRequestParser parser = new OpenAiRequestParser(JsonLimits.defaults());
    private final Optional<String> textField;
    private final String defaultModel;
    private final OptionalDouble assumedTemperature;

    /**
     * @param textField wrap this field of each line as a user message instead of reading a request body
     * @param defaultModel the model of a text-field line that names none
     * @param assumedTemperature the temperature of chat and completion requests that give none (a what-if)
     */
    RequestLogParser(Optional<String> textField, String defaultModel, OptionalDouble assumedTemperature) {
        this.textField = textField;
        this.defaultModel = defaultModel;
        this.assumedTemperature = assumedTemperature;
    }

    ParsedLine parse(long lineNumber, String line) {
        try {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            ObjectNode root = parser.parseObject(bytes);
            String tenant = root.path("tenant").isTextual() && !root.get("tenant").textValue().isEmpty()
                    ? root.get("tenant").textValue() : Exchange.DEFAULT_TENANT;
            ObjectNode body;
            if (textField.isPresent()) {
                body = wrapText(root, textField.get());
                if (body == null) {
                    return new ParsedLine.Malformed(lineNumber, "no text field '" + textField.get() + "'");
                }
            } else if (root.get("body") instanceof ObjectNode inner && !isRequest(root)) {
                body = inner; // {"tenant", "body"}, a sampled request, or an access log line with its text
            } else if (root.has("type") && !isRequest(root)) {
                return new ParsedLine.Malformed(lineNumber, "access".equals(root.path("type").asText())
                        ? "an access log line without its body (the gateway logs it with log.include_text: true)"
                        : "not a request: a '" + root.path("type").asText() + "' line");
            } else {
                body = root;
            }
            // A log line does not say which endpoint it was sent to: the body's shape does.
            Endpoint endpoint = body.has("messages") ? Endpoint.CHAT_COMPLETIONS
                    : body.has("prompt") ? Endpoint.COMPLETIONS
                    : body.has("input") ? Endpoint.EMBEDDINGS : null;
            if (endpoint == null) {
                return new ParsedLine.Malformed(lineNumber, "not a request: no messages, prompt or input");
            }
            if (endpoint != Endpoint.EMBEDDINGS && assumedTemperature.isPresent() && !body.hasNonNull("temperature")) {
                body = body.deepCopy().put("temperature", assumedTemperature.getAsDouble());
            }
            byte[] validated = body == root ? bytes : JSON.writeValueAsBytes(body);
            OpenAiRequest request = parser.parse(endpoint, validated);
            return new ParsedLine.Request(new LoggedRequest(lineNumber, tenant, request));
        } catch (ApiException e) {
            return new ParsedLine.Malformed(lineNumber, e.getMessage());
        } catch (JsonProcessingException e) {
            return new ParsedLine.Malformed(lineNumber, "cannot re-encode the body: " + e.getOriginalMessage());
        }
    }

    /** A request body itself: an access log line has a root {@code model} too, but none of these. */
    private static boolean isRequest(ObjectNode root) {
        return root.has("messages") || root.has("prompt") || root.has("input");
    }

    private ObjectNode wrapText(ObjectNode root, String field) {
        JsonNode text = root.get(field);
        if (text == null || !text.isTextual()) {
            return null;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("model", root.path("model").isTextual() ? root.get("model").textValue() : defaultModel);
        body.putArray("messages").addObject().put("role", "user").put("content", text.textValue());
        return body;
    }
}
