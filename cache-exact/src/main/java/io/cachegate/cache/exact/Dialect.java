package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Embed;
import java.util.List;
import java.util.Optional;

/**
 * What caching needs to know of one OpenAI API, one implementation per API (chat, completions, embeddings,
 * responses): its canonical form, what keeps a request of it from being cached, the text a semantic lookup embeds,
 * how its stream is assembled into the stored document and how that document is replayed as a stream, and on the
 * answer side the text a person reads in an answer or a stream event and the names of its usage counts. The
 * gateway's endpoint carries its dialect, so what differs between the APIs is a call on it rather than a switch on
 * which API it is.
 */
public interface Dialect {

    /** {@code POST /v1/chat/completions}. */
    Dialect CHAT = new ChatDialect();
    /** {@code POST /v1/completions}. */
    Dialect COMPLETIONS = new CompletionsDialect();
    /** {@code POST /v1/embeddings}. */
    Dialect EMBEDDINGS = new EmbeddingsDialect();
    /** {@code POST /v1/responses}, the Responses API. */
    Dialect RESPONSES = new ResponsesDialect();

    /**
     * The dialect a stored answer document was written in, for a body whose request is not at hand (an entry the
     * semantic layer or an audit reads back): by its {@code object} field.
     */
    static Dialect ofAnswer(JsonNode answer) {
        String object = answer == null ? "" : answer.path("object").asText("");
        return switch (object) {
            case "response" -> RESPONSES;
            case "text_completion" -> COMPLETIONS;
            case "list" -> EMBEDDINGS;
            default -> CHAT;
        };
    }

    /** Every dialect. */
    static List<Dialect> all() {
        return List.of(CHAT, COMPLETIONS, EMBEDDINGS, RESPONSES);
    }

    /**
     * The dialect's name at the head of the canonical form ({@code chat}, {@code completion}, {@code embedding},
     * {@code response}): one body sent to two endpoints never shares a key. Stored entries are keyed on it, so it
     * never changes.
     */
    String keyName();

    /** Rewrites {@code request}, a copy of a body sent to this dialect's endpoint, to its canonical content. */
    void canonicalize(ObjectNode request, CanonicalOptions options);

    /**
     * Why {@code body} itself keeps the exact cache out on {@code route} (it samples, asks for several choices,
     * continues server state), or null when nothing in it does.
     */
    BypassReason bypass(ObjectNode body, RouteCachePolicy route);

    /**
     * The text a semantic lookup of this request embeds, taken out of {@code blanked} (a copy of the body) and
     * replaced there by {@code placeholder}; or why there is none.
     *
     * @param maxTurns a conversation with more user messages than this is not matched semantically
     */
    SemanticText semanticText(ObjectNode blanked, Embed embed, int maxTurns, String placeholder);

    /** A new assembler for one streamed answer of this dialect, holding at most {@code maxBytes}. */
    AnswerAssembler assembler(int maxBytes);

    /**
     * The SSE events that replay the stored answer {@code document} in this dialect's stream format, or empty when
     * it cannot be replayed.
     *
     * @param includeUsage whether the client asked for a usage chunk ({@code stream_options.include_usage})
     */
    Optional<List<byte[]>> replay(JsonNode document, boolean includeUsage);

    /** The text a person reads in the JSON answer {@code answer}; empty when it holds none (an embedding). */
    String answerText(JsonNode answer);

    /** The text one event of this dialect's stream adds to the answer; empty for an event that adds none. */
    String deltaText(JsonNode event);

    /** The prompt's tokens in an answer's {@code usage} object (0 when absent). */
    default long promptTokens(JsonNode usage) {
        return usage.path("prompt_tokens").asLong(0);
    }

    /** The generated tokens in an answer's {@code usage} object (0 when absent). */
    default long completionTokens(JsonNode usage) {
        return usage.path("completion_tokens").asLong(0);
    }
}
