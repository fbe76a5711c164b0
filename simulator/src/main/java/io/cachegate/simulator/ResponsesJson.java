package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A Responses API answer as vLLM's {@code /v1/responses} writes it: a {@code response} object echoing the
 * request's settings, with one assistant message; streamed as {@code event: <type>} / {@code data: <json>} pairs
 * from {@code response.created} to {@code response.completed} (or {@code response.incomplete} when the output
 * hit {@code max_output_tokens}), each with a {@code sequence_number}, and no {@code [DONE]}.
 */
final class ResponsesJson implements AnswerFormat {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final CompletionRequest request;
    private final String id;
    private final String messageId;
    private final long created;
    /** The text streamed so far: the done events repeat it (at most max_output_tokens tokens). */
    private final StringBuilder text = new StringBuilder();
    private String finishReason = "stop";
    private int sequence;

    ResponsesJson(CompletionRequest request, long created) {
        this.request = request;
        this.created = created;
        this.id = "resp_" + request.hash().idHex();
        this.messageId = "msg_" + request.hash().idHex();
    }

    @Override
    public void opening(StringBuilder out, int choices) {
        ObjectNode started = response("in_progress", null, 0, 0, 0);
        emit(out, event("response.created").set("response", started));
        emit(out, event("response.in_progress").set("response", started));
        ObjectNode item = message("in_progress");
        item.putArray("content");
        emit(out, event("response.output_item.added").put("output_index", 0).set("item", item));
        emit(out, located(event("response.content_part.added")).set("part", part("")));
    }

    @Override
    public void token(StringBuilder out, int index, String token, String finish) {
        text.append(token);
        if (finish != null) {
            this.finishReason = finish;
        }
        ObjectNode delta = located(event("response.output_text.delta")).put("delta", token);
        delta.putArray("logprobs");
        emit(out, delta);
    }

    @Override
    public void closing(StringBuilder out, int promptTokens, int cachedTokens, int completionTokens) {
        String all = text.toString();
        ObjectNode textDone = located(event("response.output_text.done")).put("text", all);
        textDone.putArray("logprobs");
        emit(out, textDone);
        emit(out, located(event("response.content_part.done")).set("part", part(all)));
        emit(out, event("response.output_item.done").put("output_index", 0).set("item", completedMessage(all)));
        ObjectNode done = response(status(), all, promptTokens, cachedTokens, completionTokens);
        emit(out, event(status().equals("completed") ? "response.completed" : "response.incomplete")
                .set("response", done));
    }

    @Override
    public String fullResponse(String[][] choices, String finish, int promptTokens, int cachedTokens) {
        this.finishReason = finish;
        return response(status(), String.join("", choices[0]), promptTokens, cachedTokens, choices[0].length)
                .toString();
    }

    private String status() {
        return finishReason.equals("length") ? "incomplete" : "completed";
    }

    /** The response object; {@code output} null: still empty, as in {@code response.created}. */
    private ObjectNode response(String status, String output, int promptTokens, int cachedTokens,
                                int completionTokens) {
        JsonNode body = request.body();
        ObjectNode response = JSON.createObjectNode().put("id", id).put("created_at", created);
        if (status.equals("incomplete")) {
            response.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            response.putNull("incomplete_details");
        }
        response.set("instructions", echo(body, "instructions", null));
        response.set("metadata", echo(body, "metadata", null));
        response.put("model", request.model()).put("object", "response");
        var items = response.putArray("output");
        if (output != null) {
            items.add(completedMessage(output));
        }
        response.set("parallel_tool_calls", echo(body, "parallel_tool_calls", JSON.getNodeFactory().booleanNode(true)));
        response.set("temperature", echo(body, "temperature", JSON.getNodeFactory().numberNode(1.0)));
        response.set("tool_choice", echo(body, "tool_choice", JSON.getNodeFactory().textNode("auto")));
        response.set("tools", echo(body, "tools", JSON.createArrayNode()));
        response.set("top_p", echo(body, "top_p", JSON.getNodeFactory().numberNode(1.0)));
        response.set("background", echo(body, "background", JSON.getNodeFactory().booleanNode(false)));
        response.set("max_output_tokens", echo(body, "max_output_tokens", null));
        response.set("previous_response_id", echo(body, "previous_response_id", null));
        response.put("service_tier", "auto").put("status", status);
        response.set("store", echo(body, "store", JSON.getNodeFactory().booleanNode(true)));
        ObjectNode textFormat = JSON.createObjectNode();
        textFormat.putObject("format").put("type", "text");
        response.set("text", echo(body, "text", textFormat));
        response.put("truncation", "disabled");
        if (output == null) {
            response.putNull("usage");
        } else {
            ObjectNode usage = response.putObject("usage").put("input_tokens", promptTokens);
            usage.putObject("input_tokens_details").put("cached_tokens", Math.max(0, cachedTokens));
            usage.put("output_tokens", completionTokens);
            usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
            usage.put("total_tokens", promptTokens + completionTokens);
        }
        response.set("user", echo(body, "user", null));
        return response;
    }

    private static JsonNode echo(JsonNode body, String field, JsonNode fallback) {
        JsonNode value = body.get(field);
        if (value != null && !value.isNull()) {
            return value;
        }
        return fallback == null ? JSON.getNodeFactory().nullNode() : fallback;
    }

    private ObjectNode message(String status) {
        return JSON.createObjectNode().put("id", messageId).put("type", "message").put("status", status)
                .put("role", "assistant");
    }

    private ObjectNode completedMessage(String all) {
        ObjectNode item = message(status().equals("completed") ? "completed" : "incomplete");
        item.putArray("content").add(part(all));
        return item;
    }

    private static ObjectNode part(String text) {
        ObjectNode part = JSON.createObjectNode().put("type", "output_text").put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }

    private ObjectNode located(ObjectNode event) {
        return event.put("item_id", messageId).put("output_index", 0).put("content_index", 0);
    }

    /** A new event of {@code type}, numbered in order. */
    private ObjectNode event(String type) {
        return JSON.createObjectNode().put("type", type).put("sequence_number", sequence++);
    }

    private static void emit(StringBuilder out, ObjectNode event) {
        out.append("event: ").append(event.path("type").textValue()).append("\ndata: ").append(event.toString())
                .append("\n\n");
    }
}
