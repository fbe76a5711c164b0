package io.cachegate.simulator;

/**
 * How a generation's tokens are written: the chat and text completion chunk format ({@link CompletionJson}) or
 * the Responses API's events ({@link ResponsesJson}). Streamed: {@link #opening}, a {@link #token} per token and
 * choice, {@link #closing}; whole: {@link #fullResponse}.
 */
interface AnswerFormat {

    /** {@code fingerprint}: the model card's, or null; chat and text completions carry it (see {@link ModelCard}). */
    static AnswerFormat of(CompletionRequest request, long created, String fingerprint) {
        return request.kind() == CompletionRequest.Kind.RESPONSES ? new ResponsesJson(request, created)
                : new CompletionJson(request, created, fingerprint);
    }

    /** What a stream sends before its first token, for {@code choices} choices. */
    void opening(StringBuilder out, int choices);

    /** One token of one choice; {@code finishReason} is null except on the last. */
    void token(StringBuilder out, int index, String token, String finishReason);

    /** What a stream sends after its last token. */
    void closing(StringBuilder out, int promptTokens, int completionTokens);

    /** The whole non-streamed answer. */
    String fullResponse(String[][] choices, String finishReason, int promptTokens);
}
