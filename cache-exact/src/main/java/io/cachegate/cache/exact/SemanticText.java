package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The text a semantic lookup embeds, taken out of a request by its {@link Dialect#semanticText}: a prompt string,
 * or the user messages of a conversation; or the reason there is none. Taking it out leaves a placeholder in its
 * place, so the rest of the request (the semantic scope) is compared exactly.
 *
 * @param text the embedded text; null when {@code ineligible} is set
 * @param ineligible why the request is not looked up semantically; null when there is a text
 */
public record SemanticText(String text, Ineligible ineligible) {

    /** Why a request is not looked up semantically; the metric outcome of the lookup. */
    public enum Ineligible { NOT_TEXT, TOO_MANY_TURNS, TOO_LONG, EMPTY }

    static SemanticText of(String text) {
        return new SemanticText(text, null);
    }

    public static SemanticText not(Ineligible reason) {
        return new SemanticText(null, reason);
    }

    /** The string {@code field} of {@code blanked}, replaced by {@code placeholder}; NOT_TEXT for anything else. */
    static SemanticText ofString(ObjectNode blanked, String field, String placeholder) {
        JsonNode prompt = blanked.get(field);
        if (prompt == null || !prompt.isTextual()) {
            return not(Ineligible.NOT_TEXT);
        }
        String text = prompt.asText();
        blanked.put(field, placeholder);
        return of(text);
    }

    /**
     * The user messages of the message list {@code field} of {@code blanked} (the last, or all of them as
     * {@code embed} says), each replaced by {@code placeholder}.
     *
     * @param maxTurns requests with more user messages than this are not matched semantically
     */
    static SemanticText ofMessages(ObjectNode blanked, String field, Embed embed, int maxTurns, String placeholder) {
        List<ObjectNode> users = userMessages(blanked.get(field));
        if (users.isEmpty()) {
            return not(Ineligible.NOT_TEXT);
        }
        if (users.size() > maxTurns) {
            return not(Ineligible.TOO_MANY_TURNS);
        }
        Optional<String> chat = blankUserMessages((ArrayNode) blanked.get(field), users, embed, placeholder);
        return chat.map(SemanticText::of).orElseGet(() -> not(Ineligible.NOT_TEXT));
    }

    private static List<ObjectNode> userMessages(JsonNode messages) {
        List<ObjectNode> users = new ArrayList<>();
        if (messages instanceof ArrayNode list) {
            for (JsonNode message : list) {
                if (message instanceof ObjectNode m && "user".equals(m.path("role").asText())) {
                    users.add(m);
                }
            }
        }
        return users;
    }

    /**
     * Replaces the embedded user messages' content with the placeholder and returns their text; empty when the
     * conversation does not end with a user message of plain text (it ends with a tool result, or holds an image).
     */
    private static Optional<String> blankUserMessages(ArrayNode list, List<ObjectNode> users, Embed embed,
                                                     String placeholder) {
        if (list.get(list.size() - 1) != users.get(users.size() - 1)) {
            return Optional.empty();
        }
        List<ObjectNode> embedded = embed == Embed.LAST_USER ? List.of(users.get(users.size() - 1)) : users;
        StringBuilder text = new StringBuilder();
        for (ObjectNode message : embedded) {
            Optional<String> content = textOf(message.get("content"));
            if (content.isEmpty()) {
                return Optional.empty();
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(content.get());
            message.put("content", placeholder);
        }
        return Optional.of(text.toString());
    }

    /**
     * A string content, or an array of text parts ({@code text}, the Responses API's {@code input_text}) joined by
     * newlines; empty for any other part (image, audio, file).
     */
    private static Optional<String> textOf(JsonNode content) {
        if (content != null && content.isTextual()) {
            return Optional.of(content.asText());
        }
        if (!(content instanceof ArrayNode parts) || parts.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : parts) {
            String type = part.path("type").asText();
            if (!("text".equals(type) || "input_text".equals(type)) || !part.path("text").isTextual()) {
                return Optional.empty();
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(part.path("text").asText());
        }
        return Optional.of(text.toString());
    }
}
