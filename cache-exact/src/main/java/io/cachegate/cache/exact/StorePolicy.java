package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether an answer is complete and successful enough to store: status 200, no error, and
 * for chat and completions every choice finished for an allowed reason (by default only
 * {@code stop}: a {@code length} cut-off or a missing finish reason is not stored); a Responses API
 * answer by its status, read as a finish reason ({@link #finishReason}).
 */
public final class StorePolicy {

    /** The finish reasons stored when the route does not say otherwise. */
    public static final Set<String> DEFAULT_FINISH_REASONS = Set.of("stop");

    private StorePolicy() {
    }

    /**
     * True when the answer may be stored. A body with {@code choices} (chat, completions) needs at
     * least one choice and every {@code finish_reason} in {@code storeFinishReasons}; a body without
     * them (embeddings) needs a non-empty {@code data} list.
     */
    public static boolean storable(int status, JsonNode responseBody, Set<String> storeFinishReasons) {
        if (status != 200 || responseBody == null || !responseBody.isObject()) {
            return false;
        }
        if ("response".equals(responseBody.path("object").asText())) {
            return finishReason(responseBody).map(storeFinishReasons::contains).orElse(false);
        }
        if (responseBody.has("error")) {
            return false;
        }
        JsonNode choices = responseBody.get("choices");
        if (choices != null) {
            if (!choices.isArray() || choices.isEmpty()) {
                return false;
            }
            for (JsonNode choice : choices) {
                JsonNode reason = choice.get("finish_reason");
                if (reason == null || !reason.isTextual() || !storeFinishReasons.contains(reason.textValue())) {
                    return false;
                }
            }
            return true;
        }
        JsonNode data = responseBody.get("data");
        return data != null && data.isArray() && !data.isEmpty();
    }

    /**
     * A Responses API answer's outcome as the chat finish reason it corresponds to, so one route setting covers
     * both: {@code completed} is {@code stop} ({@code tool_calls} when it calls a function), {@code incomplete}
     * for {@code max_output_tokens} is {@code length}, for {@code content_filter} is {@code content_filter}.
     * Empty for an error, an empty output, or any other status (queued, in progress, failed, cancelled).
     */
    static Optional<String> finishReason(JsonNode response) {
        JsonNode output = response.path("output");
        if (response.hasNonNull("error") || !output.isArray() || output.isEmpty()) {
            return Optional.empty();
        }
        String status = response.path("status").asText();
        if (status.equals("completed")) {
            for (JsonNode item : output) {
                if ("function_call".equals(item.path("type").asText())) {
                    return Optional.of("tool_calls");
                }
            }
            return Optional.of("stop");
        }
        if (status.equals("incomplete")) {
            String reason = response.path("incomplete_details").path("reason").asText();
            return reason.equals("max_output_tokens") ? Optional.of("length")
                    : reason.equals("content_filter") ? Optional.of("content_filter") : Optional.empty();
        }
        return Optional.empty();
    }
}
