package io.cachegate.gateway.api;

import static io.cachegate.gateway.api.OpenAiRequestParser.optionalBoolean;
import static io.cachegate.gateway.api.OpenAiRequestParser.optionalInt;
import static io.cachegate.gateway.api.OpenAiRequestParser.optionalLong;
import static io.cachegate.gateway.api.OpenAiRequestParser.optionalNumber;
import static io.cachegate.gateway.api.OpenAiRequestParser.requiredString;
import static io.cachegate.gateway.api.OpenAiRequestParser.wrongType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Type-checks a Responses API body ({@code POST /v1/responses}) after the strict JSON read of
 * {@link OpenAiRequestParser}: {@code input} as a string or a list of items (messages with a role and a string or
 * content parts; other items by their {@code type}), {@code instructions}, tools, {@code text.format}, sampling,
 * {@code store}, {@code previous_response_id}. A wrong type is a 400 naming the field, as for chat.
 */
final class ResponsesRequestParser {

    private static final Set<String> ROLES = Set.of("user", "assistant", "system", "developer");
    private static final Set<String> TEXT_PARTS = Set.of("input_text", "output_text");

    private ResponsesRequestParser() {
    }

    /**
     * The parsed request. Its {@code input} is the conversation as chat messages would hold it (the instructions
     * as a system message, a string input as a user message, then the items): what admission estimates and the
     * sensitive-data scan reads. The body is forwarded as it came.
     */
    static OpenAiRequest parse(ObjectNode root) {
        String model = requiredString(root, "model");
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'input' is a required property", "input");
        }
        ArrayNode conversation = JsonNodeFactory.instance.arrayNode();
        String instructions = optionalString(root, "instructions");
        if (instructions != null) {
            conversation.addObject().put("role", "system").put("content", instructions);
        }
        if (input.isTextual()) {
            conversation.addObject().put("role", "user").put("content", input.textValue());
        } else if (input.isArray()) {
            if (input.isEmpty()) {
                throw new ApiException(ErrorKind.INVALID_REQUEST, "'input' must contain at least one item", "input");
            }
            for (int i = 0; i < input.size(); i++) {
                checkItem(input.get(i), "input[" + i + "]");
                conversation.add(input.get(i));
            }
        } else {
            throw wrongType("input", "a string or an array of input items");
        }
        optionalString(root, "previous_response_id");
        optionalObject(root, "metadata");
        optionalObject(root, "reasoning");
        checkTools(root);
        checkText(root);
        JsonNode toolChoice = root.get("tool_choice");
        if (toolChoice != null && !(toolChoice.isNull() || toolChoice.isTextual() || toolChoice.isObject())) {
            throw wrongType("tool_choice", "a string or an object");
        }
        for (String flag : new String[] {"store", "background", "parallel_tool_calls"}) {
            optionalBoolean(root, flag);
        }
        boolean stream = optionalBoolean(root, "stream");
        OptionalInt maxOutput = optionalInt(root, "max_output_tokens");
        if (maxOutput.isPresent() && maxOutput.getAsInt() < 1) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'max_output_tokens' must be at least 1",
                    "max_output_tokens");
        }
        SamplingParameters sampling = new SamplingParameters(optionalNumber(root, "temperature"),
                optionalNumber(root, "top_p"), 1, maxOutput, optionalLong(root, "seed"));
        return new OpenAiRequest(Endpoint.RESPONSES, model, conversation, sampling, stream, false, root);
    }

    /** A message (a role, and content as a string or parts) or another item named by its {@code type}. */
    private static void checkItem(JsonNode item, String path) {
        if (!item.isObject()) {
            throw wrongType(path, "an object");
        }
        JsonNode type = item.get("type");
        if (type != null && !type.isTextual()) {
            throw wrongType(path + ".type", "a string");
        }
        if (type != null && !type.textValue().equals("message")) {
            return; // function_call_output, reasoning, item_reference...: forwarded as they are, and keyed whole
        }
        JsonNode role = item.get("role");
        if (role == null || !role.isTextual() || !ROLES.contains(role.textValue())) {
            throw new ApiException(ErrorKind.INVALID_REQUEST,
                    "'" + path + ".role' must be one of user, assistant, system, developer", path + ".role");
        }
        JsonNode content = item.get("content");
        if (content == null || !(content.isTextual() || content.isArray())) {
            throw wrongType(path + ".content", "a string or an array of content parts");
        }
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String partPath = path + ".content[" + i + "]";
            if (!part.isObject() || !part.path("type").isTextual()) {
                throw wrongType(partPath, "an object with a string 'type'");
            }
            if (TEXT_PARTS.contains(part.get("type").textValue()) && !part.path("text").isTextual()) {
                throw wrongType(partPath + ".text", "a string");
            }
        }
    }

    private static void checkTools(ObjectNode root) {
        JsonNode tools = root.get("tools");
        if (tools == null || tools.isNull()) {
            return;
        }
        if (!tools.isArray()) {
            throw wrongType("tools", "an array");
        }
        for (int i = 0; i < tools.size(); i++) {
            if (!tools.get(i).isObject() || !tools.get(i).path("type").isTextual()) {
                throw wrongType("tools[" + i + "]", "an object with a string 'type'");
            }
        }
    }

    private static void checkText(ObjectNode root) {
        ObjectNode text = optionalObject(root, "text");
        if (text == null) {
            return;
        }
        JsonNode format = text.get("format");
        if (format != null && !format.isNull() && (!format.isObject() || !format.path("type").isTextual())) {
            throw wrongType("text.format", "an object with a string 'type' (text, json_object or json_schema)");
        }
    }

    private static String optionalString(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw wrongType(field, "a string");
        }
        return value.textValue();
    }

    private static ObjectNode optionalObject(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw wrongType(field, "an object");
        }
        return (ObjectNode) value;
    }
}
