package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/**
 * Decides whether an answer is complete and successful enough to store: status 200, no error, and
 * for chat and completions every choice finished for an allowed reason (by default only
 * {@code stop}: a {@code length} cut-off or a missing finish reason is not stored).
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
        if (status != 200 || responseBody == null || !responseBody.isObject() || responseBody.has("error")) {
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
}
