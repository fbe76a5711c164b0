package io.cachegate.cache.exact;

/**
 * The OpenAI endpoint a request is for. It is part of the canonical form: the same body sent to
 * {@code /v1/chat/completions} and {@code /v1/completions} gets different answers.
 */
public enum RequestKind {
    /** {@code POST /v1/chat/completions}. */
    CHAT,
    /** {@code POST /v1/completions}. */
    COMPLETION,
    /** {@code POST /v1/embeddings}. */
    EMBEDDING,
    /** {@code POST /v1/responses}, the Responses API. */
    RESPONSE
}
