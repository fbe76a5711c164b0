package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CanonicalOptions;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.SemanticText;
import io.cachegate.config.Embed;
import java.util.Locale;
import java.util.Optional;

/**
 * What the semantic cache compares for one request: the text it embeds (its dialect's
 * {@link Dialect#semanticText}: the last user message, every user message, or a prompt) and the scope, a hash of
 * everything else that decides the answer, compared exactly. The scope is the exact-cache key of the request with
 * the embedded text blanked out, so it holds the tenant, model version, context, system prompt, earlier turns,
 * tools, response format and sampling parameters, and any field the exact key learns later.
 *
 * @param text the embedded text
 * @param scope 64 hex characters
 */
public record SemanticQuery(String text, String scope) {

    /** The outcome of {@link #of}: a query, or the reason there is none. */
    public record Prepared(Optional<SemanticQuery> query, Optional<SemanticText.Ineligible> reason) {
        static Prepared of(SemanticQuery query) {
            return new Prepared(Optional.of(query), Optional.empty());
        }

        static Prepared not(SemanticText.Ineligible reason) {
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
    public static Prepared of(Dialect dialect, ObjectNode body, Embed embed, int maxTurns, int maxChars,
                       CanonicalOptions options, ExactKeyFactory keys, String namespace, String modelVersion,
                       String context) {
        ObjectNode blanked = body.deepCopy();
        // The placeholder names the embed mode: scopes of last_user and all_user routes never meet.
        String placeholder = "\u0000semantic:" + embed.name().toLowerCase(Locale.ROOT);
        SemanticText taken = dialect.semanticText(blanked, embed, maxTurns, placeholder);
        if (taken.ineligible() != null) {
            return Prepared.not(taken.ineligible());
        }
        String text = taken.text();
        if (text.isBlank()) {
            return Prepared.not(SemanticText.Ineligible.EMPTY);
        }
        if (text.length() > maxChars) {
            return Prepared.not(SemanticText.Ineligible.TOO_LONG);
        }
        byte[] canonical = CanonicalRequest.of(dialect, blanked, options);
        String scope = keys.key(namespace, modelVersion, context, canonical).digest();
        return Prepared.of(new SemanticQuery(text, scope));
    }
}
