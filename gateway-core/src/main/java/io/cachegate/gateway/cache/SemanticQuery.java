package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CanonicalOptions;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.config.Embed;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the semantic cache compares for one request: the text it embeds (the last user message, or every user
 * message) and the scope, a hash of everything else that decides the answer, compared exactly. The scope is
 * the exact-cache key of the request with the embedded text blanked out, so it holds the tenant, model
 * version, context, system prompt, earlier turns, tools, response format and sampling parameters, and any
 * field the exact key learns later.
 *
 * @param text the embedded text
 * @param scope 64 hex characters
 */
public record SemanticQuery(String text, String scope) {

    /** Why a request is not looked up semantically; the metric outcome of the lookup. */
    public enum Ineligible { NOT_TEXT, TOO_MANY_TURNS, TOO_LONG, EMPTY }

    /** The outcome of {@link #of}: a query, or the reason there is none. */
    public record Prepared(Optional<SemanticQuery> query, Optional<Ineligible> reason) {
        static Prepared of(SemanticQuery query) {
            return new Prepared(Optional.of(query), Optional.empty());
        }

        static Prepared not(Ineligible reason) {
            return new Prepared(Optional.empty(), Optional.of(reason));
        }
    }

    /**
     * The query of a chat, completion or Responses API request (its input string, or its user messages).
     *
     * @param maxTurns requests with more user messages than this are not matched semantically
     * @param maxChars texts longer than this are not matched: the embedder would truncate them, and two texts
     *                 that differ only after the cut would look identical
     */
    public static Prepared of(Dialect kind, ObjectNode body, Embed embed, int maxTurns, int maxChars,
                       CanonicalOptions options, ExactKeyFactory keys, String namespace, String modelVersion,
                       String context) {
        ObjectNode blanked = body.deepCopy();
        // The placeholder names the embed mode: scopes of last_user and all_user routes never meet.
        String placeholder = "\u0000semantic:" + embed.name().toLowerCase(Locale.ROOT);
        String text;
        if (kind == Dialect.COMPLETIONS) {
            JsonNode prompt = body.get("prompt");
            if (prompt == null || !prompt.isTextual()) {
                return Prepared.not(Ineligible.NOT_TEXT);
            }
            text = prompt.asText();
            blanked.put("prompt", placeholder);
        } else if (kind == Dialect.RESPONSES && body.path("input").isTextual()) {
            text = body.get("input").textValue(); // one user message, in the Responses API's shorthand
            blanked.put("input", placeholder);
        } else if (kind == Dialect.CHAT || kind == Dialect.RESPONSES) {
            // a Responses API input list holds messages as chat does (other items have no user role)
            String field = kind == Dialect.CHAT ? "messages" : "input";
            List<ObjectNode> users = userMessages(blanked.get(field));
            if (users.isEmpty()) {
                return Prepared.not(Ineligible.NOT_TEXT);
            }
            if (users.size() > maxTurns) {
                return Prepared.not(Ineligible.TOO_MANY_TURNS);
            }
            Optional<String> chat = blankUserMessages((ArrayNode) blanked.get(field), users, embed, placeholder);
            if (chat.isEmpty()) {
                return Prepared.not(Ineligible.NOT_TEXT);
            }
            text = chat.get();
        } else {
            return Prepared.not(Ineligible.NOT_TEXT);
        }
        if (text.isBlank()) {
            return Prepared.not(Ineligible.EMPTY);
        }
        if (text.length() > maxChars) {
            return Prepared.not(Ineligible.TOO_LONG);
        }
        byte[] canonical = CanonicalRequest.of(kind, blanked, options);
        String scope = keys.key(namespace, modelVersion, context, canonical).digest();
        return Prepared.of(new SemanticQuery(text, scope));
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
