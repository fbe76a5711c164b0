package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import java.util.List;
import java.util.Optional;

/**
 * The Responses API ({@code POST /v1/responses}): instructions and input items in, a response object (or its
 * typed event stream) out. The response echoes its request, which gives it a canonical form of its own
 * ({@link ResponsesCanonical}), and it may continue state the backend holds.
 */
final class ResponsesDialect implements Dialect {

    @Override
    public String keyName() {
        return "response";
    }

    @Override
    public void canonicalize(ObjectNode request, CanonicalOptions options) {
        ResponsesCanonical.apply(request, options.normalize()); // echoes its request: rules of its own
    }

    @Override
    public BypassReason bypass(ObjectNode body, RouteCachePolicy route) {
        if (!route.serverState() && ResponsesCanonical.usesServerState(body)) {
            return BypassReason.SERVER_STATE;
        }
        return Cacheability.sampled(body, route);
    }

    /**
     * The input string (one user message, in the Responses API's shorthand) or the user messages of the input list,
     * which holds messages as chat does (other items have no user role).
     */
    @Override
    public SemanticText semanticText(ObjectNode blanked, Embed embed, int maxTurns, String placeholder) {
        return blanked.path("input").isTextual()
                ? SemanticText.ofString(blanked, "input", placeholder)
                : SemanticText.ofMessages(blanked, "input", embed, maxTurns, placeholder);
    }

    @Override
    public AnswerAssembler assembler(int maxBytes) {
        return new ResponsesStreamAssembler(maxBytes);
    }

    /** Replayed in the Responses event format; {@code includeUsage} does not apply (the final event carries it). */
    @Override
    public Optional<List<byte[]>> replay(JsonNode document, boolean includeUsage) {
        return ResponsesSseReplay.canReplay(document)
                ? Optional.of(ResponsesSseReplay.events(document))
                : Optional.empty();
    }

    @Override
    public String toString() {
        return keyName();
    }

    @Override
    public String answerText(JsonNode answer) {
        return ResponsesText.of(answer);
    }

    /** Only {@code response.output_text.delta} events carry text. */
    @Override
    public String deltaText(JsonNode event) {
        return "response.output_text.delta".equals(event.path("type").asText()) ? event.path("delta").asText("") : "";
    }

    /** The Responses API names them input and output tokens. */
    @Override
    public long promptTokens(JsonNode usage) {
        return usage.path("input_tokens").asLong(0);
    }

    @Override
    public long completionTokens(JsonNode usage) {
        return usage.path("output_tokens").asLong(0);
    }
}
