package io.cachegate.simulator;

/**
 * The JSON of chat and text completion answers, field for field as vLLM's pydantic models
 * serialise them: streamed chat chunks exclude unset fields, streamed text chunks do not (hence
 * {@code "usage":null} on every text chunk). Built with a StringBuilder because this is the hot
 * path of the zero-latency benchmark: one header prefix per request, a few appends per token. When the model's
 * card was set, every answer and chunk carries its {@code system_fingerprint} after the model.
 */
final class CompletionJson implements AnswerFormat {

    private final CompletionRequest.Kind kind;
    private final boolean includeUsage;
    /** {@code {"id":"...","object":"...","created":N,"model":"...","choices":[} of every chunk. */
    private final String chunkPrefix;
    private final String id;
    private final long created;
    /** {@code "model"} and, with a fingerprint, {@code ,"system_fingerprint":"..."} after it. */
    private final String modelFields;

    CompletionJson(CompletionRequest request, long created, String fingerprint) {
        this.kind = request.kind();
        this.includeUsage = request.includeUsage();
        this.created = created;
        this.modelFields = Json.quote(request.model())
                + (fingerprint == null ? "" : ",\"system_fingerprint\":" + Json.quote(fingerprint));
        this.id = (kind == CompletionRequest.Kind.CHAT ? "chatcmpl-" : "cmpl-") + request.hash().idHex();
        String chunkObject = kind == CompletionRequest.Kind.CHAT ? "chat.completion.chunk" : "text_completion";
        this.chunkPrefix = "{\"id\":\"" + id + "\",\"object\":\"" + chunkObject + "\",\"created\":" + created
                + ",\"model\":" + modelFields + ",\"choices\":[";
    }

    /** Chat: the first chunk of each choice; text completions open with their first token. */
    @Override
    public void opening(StringBuilder out, int choices) {
        if (kind == CompletionRequest.Kind.CHAT) {
            for (int c = 0; c < choices; c++) {
                roleChunk(out, c);
            }
        }
    }

    /** The usage chunk when {@code include_usage} is set, then {@code [DONE]}. */
    @Override
    public void closing(StringBuilder out, int promptTokens, int cachedTokens, int completionTokens) {
        if (includeUsage) {
            usageChunk(out, promptTokens, cachedTokens, completionTokens);
        }
        SseEncoder.done(out);
    }

    /** The first chunk of a chat choice: {@code delta: {"role":"assistant","content":""}}. */
    void roleChunk(StringBuilder out, int index) {
        SseEncoder.beginEvent(out).append(chunkPrefix)
                .append("{\"index\":").append(index)
                .append(",\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]");
        endChunk(out);
    }

    @Override
    public void token(StringBuilder out, int index, String token, String finishReason) {
        SseEncoder.beginEvent(out).append(chunkPrefix).append("{\"index\":").append(index);
        if (kind == CompletionRequest.Kind.CHAT) {
            Json.appendQuoted(out.append(",\"delta\":{\"content\":"), token).append("},\"logprobs\":null");
            if (finishReason == null) {
                out.append(",\"finish_reason\":null}]");
            } else {
                out.append(",\"finish_reason\":\"").append(finishReason).append("\",\"stop_reason\":null}]");
            }
        } else {
            Json.appendQuoted(out.append(",\"text\":"), token).append(",\"logprobs\":null,\"finish_reason\":");
            if (finishReason == null) {
                out.append("null");
            } else {
                out.append('"').append(finishReason).append('"');
            }
            out.append(",\"stop_reason\":null}]");
        }
        endChunk(out);
    }

    /** The final {@code "choices":[]} chunk with the usage, sent when {@code include_usage} is set. */
    void usageChunk(StringBuilder out, int promptTokens, int cachedTokens, int completionTokens) {
        SseEncoder.beginEvent(out).append(chunkPrefix).append("],\"usage\":");
        usage(out, promptTokens, cachedTokens, completionTokens, false).append('}');
        SseEncoder.endEvent(out);
    }

    /** A complete non-streamed {@code chat.completion} or {@code text_completion}. */
    @Override
    public String fullResponse(String[][] choices, String finishReason, int promptTokens, int cachedTokens) {
        int completionTokens = 0;
        StringBuilder out = new StringBuilder(128 + choices.length * (choices[0].length * 8 + 160));
        out.append("{\"id\":\"").append(id).append("\",\"object\":\"")
                .append(kind == CompletionRequest.Kind.CHAT ? "chat.completion" : "text_completion")
                .append("\",\"created\":").append(created).append(",\"model\":").append(modelFields)
                .append(",\"choices\":[");
        for (int i = 0; i < choices.length; i++) {
            completionTokens += choices[i].length;
            if (i > 0) {
                out.append(',');
            }
            String text = String.join("", choices[i]);
            out.append("{\"index\":").append(i);
            if (kind == CompletionRequest.Kind.CHAT) {
                Json.appendQuoted(out.append(",\"message\":{\"role\":\"assistant\",\"content\":"), text)
                        .append(",\"tool_calls\":[]},\"logprobs\":null,\"finish_reason\":\"").append(finishReason)
                        .append("\",\"stop_reason\":null}");
            } else {
                Json.appendQuoted(out.append(",\"text\":"), text)
                        .append(",\"logprobs\":null,\"finish_reason\":\"").append(finishReason)
                        .append("\",\"stop_reason\":null,\"prompt_logprobs\":null}");
            }
        }
        out.append("],\"usage\":");
        usage(out, promptTokens, cachedTokens, completionTokens, true);
        if (kind == CompletionRequest.Kind.CHAT) {
            out.append(",\"prompt_logprobs\":null");
        }
        return out.append('}').toString();
    }

    private void endChunk(StringBuilder out) {
        if (kind == CompletionRequest.Kind.TEXT || includeUsage) {
            out.append(",\"usage\":null");
        }
        out.append('}');
        SseEncoder.endEvent(out);
    }

    /**
     * vLLM's UsageInfo: prompt, total, completion, then {@code prompt_tokens_details} — null in a whole answer
     * without a prefix cache (absent from the streamed usage), else {@code {"cached_tokens":N}}, as vLLM fills it.
     */
    private static StringBuilder usage(StringBuilder out, int promptTokens, int cachedTokens, int completionTokens,
                                       boolean whole) {
        out.append("{\"prompt_tokens\":").append(promptTokens)
                .append(",\"total_tokens\":").append(promptTokens + completionTokens)
                .append(",\"completion_tokens\":").append(completionTokens);
        if (cachedTokens >= 0) {
            out.append(",\"prompt_tokens_details\":{\"cached_tokens\":").append(cachedTokens).append('}');
        } else if (whole) {
            out.append(",\"prompt_tokens_details\":null");
        }
        return out.append('}');
    }
}
