package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The legacy completions API ({@code POST /v1/completions}): a prompt in, text (or a stream of text) out. */
final class CompletionsDialect implements Dialect {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final Map<String, JsonNode> DEFAULTS = Map.of(
            "temperature", NODES.numberNode(1),
            "top_p", NODES.numberNode(1),
            "n", NODES.numberNode(1),
            "presence_penalty", NODES.numberNode(0),
            "frequency_penalty", NODES.numberNode(0),
            "max_tokens", NODES.numberNode(16),
            "echo", NODES.booleanNode(false),
            "best_of", NODES.numberNode(1));

    @Override
    public String keyName() {
        return "completion";
    }

    @Override
    public void canonicalize(ObjectNode request, CanonicalOptions options) {
        CanonicalRequest.openAiRules(request, options);
        CanonicalRequest.fillDefaults(request, DEFAULTS);
        CanonicalRequest.noneSpellings(request);
        CanonicalRequest.normalizeTexts(request, "prompt", options.normalize());
    }

    @Override
    public BypassReason bypass(ObjectNode body, RouteCachePolicy route) {
        return Cacheability.sampled(body, route);
    }

    /** A prompt string; a list of prompts (or of token ids) is not one question. */
    @Override
    public SemanticText semanticText(ObjectNode blanked, Embed embed, int maxTurns, String placeholder) {
        return SemanticText.ofString(blanked, "prompt", placeholder);
    }

    /** The chat assembler reads both chunk formats ({@code text_completion} as well). */
    @Override
    public AnswerAssembler assembler(int maxBytes) {
        return Dialect.CHAT.assembler(maxBytes);
    }

    /** The chat replay writes both chunk formats, chosen by the stored document's {@code object}. */
    @Override
    public Optional<List<byte[]>> replay(JsonNode document, boolean includeUsage) {
        return Dialect.CHAT.replay(document, includeUsage);
    }

    @Override
    public String toString() {
        return keyName();
    }

    @Override
    public String answerText(JsonNode answer) {
        return Dialect.CHAT.answerText(answer); // the same choices, text where chat has a message
    }

    @Override
    public String deltaText(JsonNode event) {
        return Dialect.CHAT.deltaText(event);
    }
}
