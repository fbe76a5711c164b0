package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One choice of a streamed answer as its deltas arrive. Strings are concatenated the way the
 * OpenAI SDKs accumulate deltas (their accumulators also concatenate a tool call's id and name),
 * so the stored answer is what a client of the live stream ended up with.
 */
final class AssembledChoice {

    private final int index;
    private String role;
    private StringBuilder content;
    private StringBuilder refusal;
    /** Other text fields of a delta, such as vLLM's {@code reasoning_content}, in order of arrival. */
    private final Map<String, StringBuilder> otherText = new LinkedHashMap<>();
    private final TreeMap<Integer, ToolCall> toolCalls = new TreeMap<>();
    private final StringBuilder text = new StringBuilder();
    private String finishReason;
    private JsonNode stopReason;

    AssembledChoice(int index) {
        this.index = index;
    }

    /**
     * Applies a chat {@code delta}; returns null, or why it cannot be stored (a non-text field
     * this class does not know, such as the legacy {@code function_call}).
     */
    String applyDelta(JsonNode delta) {
        for (Map.Entry<String, JsonNode> field : delta.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (value.isNull()) {
                continue;
            }
            if (name.equals("tool_calls")) {
                String problem = applyToolCalls(value);
                if (problem != null) {
                    return problem;
                }
            } else if (value.isTextual()) {
                switch (name) {
                    case "role" -> role = value.textValue();
                    case "content" -> content = appendText(content, value);
                    case "refusal" -> refusal = appendText(refusal, value);
                    default -> otherText.computeIfAbsent(name, k -> new StringBuilder()).append(value.textValue());
                }
            } else if (name.equals("role") || name.equals("content") || name.equals("refusal")) {
                return "delta." + name + " is not a string";
            } else if (!value.isContainerNode() || !value.isEmpty()) {
                return "unsupported delta field";
            }
        }
        return null;
    }

    void appendText(String value) {
        text.append(value);
    }

    void finish(JsonNode finishReason, JsonNode stopReason) {
        if (finishReason != null && finishReason.isTextual()) {
            this.finishReason = finishReason.textValue();
        }
        if (stopReason != null && !stopReason.isNull()) {
            this.stopReason = stopReason;
        }
    }

    boolean finished() {
        return finishReason != null;
    }

    int index() {
        return index;
    }

    ObjectNode chatChoice(JsonNodeFactory json) {
        ObjectNode message = json.objectNode();
        message.put("role", role == null ? "assistant" : role);
        message.put("content", content == null ? null : content.toString());
        otherText.forEach((name, value) -> message.put(name, value.toString()));
        if (refusal != null) {
            message.put("refusal", refusal.toString());
        }
        if (!toolCalls.isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            toolCalls.values().forEach(call -> calls.add(call.toJson(json)));
        }
        ObjectNode choice = json.objectNode().put("index", index);
        choice.set("message", message);
        return end(choice);
    }

    ObjectNode textChoice(JsonNodeFactory json) {
        return end(json.objectNode().put("index", index).put("text", text.toString()));
    }

    private ObjectNode end(ObjectNode choice) {
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        if (stopReason != null) {
            choice.set("stop_reason", stopReason);
        }
        return choice;
    }

    private String applyToolCalls(JsonNode deltas) {
        if (!deltas.isArray()) {
            return "delta.tool_calls is not an array";
        }
        for (JsonNode delta : deltas) {
            JsonNode callIndex = delta.path("index");
            if (!callIndex.canConvertToExactIntegral() || !callIndex.canConvertToInt() || callIndex.intValue() < 0) {
                return "tool call without a valid index";
            }
            ToolCall call = toolCalls.computeIfAbsent(callIndex.intValue(), k -> new ToolCall());
            JsonNode function = delta.path("function");
            if (!isTextOrAbsent(delta.path("id")) || !isTextOrAbsent(delta.path("type"))
                    || !isTextOrAbsent(function.path("name")) || !isTextOrAbsent(function.path("arguments"))) {
                return "tool call field is not a string";
            }
            call.id = appendText(call.id, delta.path("id"));
            if (delta.path("type").isTextual()) {
                call.type = delta.path("type").textValue();
            }
            call.name = appendText(call.name, function.path("name"));
            call.arguments = appendText(call.arguments, function.path("arguments"));
        }
        return null;
    }

    private static boolean isTextOrAbsent(JsonNode value) {
        return value.isTextual() || value.isMissingNode() || value.isNull();
    }

    private static StringBuilder appendText(StringBuilder target, JsonNode value) {
        if (!value.isTextual()) {
            return target;
        }
        return (target == null ? new StringBuilder() : target).append(value.textValue());
    }

    private static final class ToolCall {
        private StringBuilder id;
        private String type;
        private StringBuilder name;
        private StringBuilder arguments;

        ObjectNode toJson(JsonNodeFactory json) {
            ObjectNode call = json.objectNode();
            if (id != null) {
                call.put("id", id.toString());
            }
            call.put("type", type == null ? "function" : type);
            call.putObject("function")
                    .put("name", name == null ? "" : name.toString())
                    .put("arguments", arguments == null ? "" : arguments.toString());
            return call;
        }
    }
}
