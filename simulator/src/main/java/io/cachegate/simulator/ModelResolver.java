package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The served model a request names (the first served one when it names none), or a 404 as vLLM gives. */
final class ModelResolver {

    private ModelResolver() {
    }

    static String resolve(JsonNode body, List<String> models) {
        JsonNode model = body.get("model");
        if (model == null || model.isNull()) {
            return models.get(0);
        }
        if (!model.isTextual()) {
            throw InvalidRequestException.badRequest("model must be a string.", "model");
        }
        String name = model.textValue();
        if (!models.contains(name)) {
            throw new InvalidRequestException(ApiError.NOT_FOUND, "The model `" + name + "` does not exist.", "model");
        }
        return name;
    }
}
