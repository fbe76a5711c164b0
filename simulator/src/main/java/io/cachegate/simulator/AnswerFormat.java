package io.cachegate.simulator;

/**
 * How a generation's tokens are written: the chat and text completion chunk format ({@link CompletionJson}) or
 * the Responses API's events ({@link ResponsesJson}). Streamed: {@link #opening}, a {@link #token} per token and
 * choice, {@link #closing}; whole: {@link #fullResponse}.
 */
interface AnswerFormat {

    /** The cached-token count of an answer from a replica without a prefix cache: no details are reported. */
    int NO_PREFIX_CACHE = -1;

    /** {@code fingerprint}: the model card's, or null; chat and text completions carry it (see {@link ModelCard}). */
    static AnswerFormat of(CompletionRequest request, long created, String fingerprint) {
        return request.kind() == CompletionRequest.Kind.RESPONSES ? new ResponsesJson(request, created)
                : new CompletionJson(request, created, fingerprint);
    }

    /** What a stream sends before its first token, for {@code choices} choices. */
    void opening(StringBuilder out, int choices);

    /** One token of one choice; {@code finishReason} is null except on the last. */
    void token(StringBuilder out, int index, String token, String finishReason);

    /**
     * What a stream sends after its last token. {@code cachedTokens}: the prompt tokens the prefix cache held,
     * reported as {@code prompt_tokens_details.cached_tokens}; {@link #NO_PREFIX_CACHE} when there is no cache.
     */
    void closing(StringBuilder out, int promptTokens, int cachedTokens, int completionTokens);

    /** The whole non-streamed answer; {@code cachedTokens} as in {@link #closing}. */
    String fullResponse(String[][] choices, String finishReason, int promptTokens, int cachedTokens);
}
