package io.cachegate.gateway.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.kv.PromptTokens;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed request's prompt as the engine would tokenize it: a chat's messages through the chat template, a text
 * prompt as it is, anything else as its prompt text. A content array's text parts are joined without a separator,
 * as vLLM joins them for a text-only model.
 */
final class KvPrompts {

    private KvPrompts() {
    }

    static int[] tokens(PromptTokens tokens, OpenAiRequest request) {
        JsonNode input = request.input();
        if (input != null && input.isArray() && input.size() > 0 && input.get(0).isObject()
                && input.get(0).has("role")) {
            List<PromptTokens.Message> messages = new ArrayList<>(input.size());
            for (JsonNode m : input) {
                messages.add(new PromptTokens.Message(m.path("role").asText(""), text(m.get("content"))));
            }
            return tokens.chat(messages);
        }
        if (input != null && input.isTextual()) {
            return tokens.text(input.textValue());
        }
        return tokens.text(request.promptText());
    }

    private static String text(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isTextual()) {
            return content.textValue();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            text.append(part.path("text").asText(""));
        }
        return text.toString();
    }
}
