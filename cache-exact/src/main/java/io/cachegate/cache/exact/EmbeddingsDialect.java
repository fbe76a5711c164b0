package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The embeddings API ({@code POST /v1/embeddings}): texts in, vectors out. Deterministic by nature, never
 * streamed.
 */
final class EmbeddingsDialect implements Dialect {

    private static final Map<String, JsonNode> DEFAULTS = Map.of(
            "encoding_format", JsonNodeFactory.instance.textNode("float"));

    @Override
    public String keyName() {
        return "embedding";
    }

    @Override
    public void canonicalize(ObjectNode request, CanonicalOptions options) {
        CanonicalRequest.openAiRules(request, options);
        CanonicalRequest.fillDefaults(request, DEFAULTS);
        CanonicalRequest.normalizeTexts(request, "input", options.normalize());
    }

    /** An embedding does not sample: sampling fields, if sent, change nothing. */
    @Override
    public BypassReason bypass(ObjectNode body, RouteCachePolicy route) {
        return null;
    }

    /** An embedding is not an answer the semantic cache gives by meaning. */
    @Override
    public SemanticText semanticText(ObjectNode blanked, Embed embed, int maxTurns, String placeholder) {
        return SemanticText.not(SemanticText.Ineligible.NOT_TEXT);
    }

    /**
     * The chat assembler, which refuses an embeddings list: there is no embeddings stream to store (a backend
     * answering {@code stream: true} with events is not one we understand).
     */
    @Override
    public AnswerAssembler assembler(int maxBytes) {
        return Dialect.CHAT.assembler(maxBytes);
    }

    /** An embeddings answer has no stream format. */
    @Override
    public Optional<List<byte[]>> replay(JsonNode document, boolean includeUsage) {
        return Optional.empty();
    }

    @Override
    public String toString() {
        return keyName();
    }

    /** Vectors, no text. */
    @Override
    public String answerText(JsonNode answer) {
        return "";
    }

    @Override
    public String deltaText(JsonNode event) {
        return "";
    }
}
