package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import io.cachegate.config.Normalize;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The chat completions API ({@code POST /v1/chat/completions}): messages in, a message (or a stream of deltas) out. */
final class ChatDialect implements Dialect {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final Map<String, JsonNode> DEFAULTS = Map.of(
            "temperature", NODES.numberNode(1),
            "top_p", NODES.numberNode(1),
            "n", NODES.numberNode(1),
            "presence_penalty", NODES.numberNode(0),
            "frequency_penalty", NODES.numberNode(0),
            "logprobs", NODES.booleanNode(false));
    /** Roles whose text a person wrote; normalisation never touches assistant or tool output. */
    private static final Set<String> AUTHORED_ROLES = Set.of("user", "system", "developer");

    @Override
    public String keyName() {
        return "chat";
    }

    @Override
    public void canonicalize(ObjectNode request, CanonicalOptions options) {
        CanonicalRequest.openAiRules(request, options);
        CanonicalRequest.fillDefaults(request, DEFAULTS);
        CanonicalRequest.noneSpellings(request);
        unifyMaxTokens(request);
        boolean tools = request.path("tools").isArray() && !request.path("tools").isEmpty();
        if (!request.has("tool_choice")) {
            request.put("tool_choice", tools ? "auto" : "none");
        }
        if (tools && !request.has("parallel_tool_calls")) {
            request.put("parallel_tool_calls", true);
        }
        if (!request.has("response_format")) {
            request.putObject("response_format").put("type", "text");
        }
        Normalize normalize = options.normalize();
        if (normalize != Normalize.NONE && request.path("messages").isArray()) {
            for (JsonNode message : request.get("messages")) {
                if (message instanceof ObjectNode m && AUTHORED_ROLES.contains(m.path("role").asText())) {
                    normalizeContent(m, normalize);
                }
            }
        }
    }

    @Override
    public BypassReason bypass(ObjectNode body, RouteCachePolicy route) {
        return Cacheability.sampled(body, route);
    }

    @Override
    public SemanticText semanticText(ObjectNode blanked, Embed embed, int maxTurns, String placeholder) {
        return SemanticText.ofMessages(blanked, "messages", embed, maxTurns, placeholder);
    }

    @Override
    public AnswerAssembler assembler(int maxBytes) {
        return new StreamAssembler(maxBytes);
    }

    @Override
    public Optional<List<byte[]>> replay(JsonNode document, boolean includeUsage) {
        return SseReplay.canReplay(document) ? Optional.of(SseReplay.events(document, includeUsage)) : Optional.empty();
    }

    @Override
    public String toString() {
        return keyName();
    }

    /**
     * {@code max_completion_tokens} is the newer name of {@code max_tokens}: the key uses
     * {@code max_tokens}. Two different values are kept apart, as the backend sees both.
     */
    private static void unifyMaxTokens(ObjectNode request) {
        JsonNode completion = request.get("max_completion_tokens");
        if (completion == null) {
            return;
        }
        JsonNode max = request.get("max_tokens");
        boolean same = max != null && max.isNumber() && completion.isNumber()
                && CanonicalJson.number(max).equals(CanonicalJson.number(completion));
        if (max == null || same) {
            request.remove("max_completion_tokens");
            request.set("max_tokens", completion);
        }
    }

    private static void normalizeContent(ObjectNode message, Normalize normalize) {
        JsonNode content = message.get("content");
        if (content != null && content.isTextual()) {
            message.put("content", TextNormalizer.apply(content.textValue(), normalize));
        } else if (content != null && content.isArray()) {
            for (JsonNode part : content) {
                if (part instanceof ObjectNode p && "text".equals(p.path("type").asText()) && p.path("text").isTextual()) {
                    p.put("text", TextNormalizer.apply(p.get("text").textValue(), normalize));
                }
            }
        }
    }

    @Override
    public String answerText(JsonNode answer) {
        return choicesText(answer, "message");
    }

    @Override
    public String deltaText(JsonNode event) {
        return choicesText(event, "delta");
    }

    /** The text of the choices of a chat or completions answer or event, from each choice's {@code part}. */
    private static String choicesText(JsonNode answer, String part) {
        StringBuilder out = new StringBuilder();
        for (JsonNode choice : answer.path("choices")) {
            JsonNode content = choice.path(part).path("content");
            JsonNode text = content.isTextual() ? content : choice.path("text");
            if (text.isTextual()) {
                if (part.equals("message") && !out.isEmpty()) {
                    out.append('\n'); // choices of n > 1, one after another
                }
                out.append(text.textValue());
            }
        }
        return out.toString();
    }
}
