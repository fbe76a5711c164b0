package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * Applies {@code POST /sim/models/{id}} with {@code {"root": "...", "revision": "..."}} to a replica's
 * {@link ModelCards}: a field given replaces the card's, one left out keeps it, {@code "revision": null} removes
 * the revision. Anything else is a 400 (404 for an id the replica does not serve), so a test's typo fails loudly
 * instead of leaving the card as it was.
 */
final class ModelCardUpdate {

    private static final String PATH_PREFIX = "/sim/models/";
    private static final Set<String> FIELDS = Set.of("root", "revision");

    private ModelCardUpdate() {
    }

    /** {@code /sim/models/{id}} with an id (which may hold slashes, as Hugging Face names do). */
    static boolean matches(String path) {
        return path.startsWith(PATH_PREFIX) && path.length() > PATH_PREFIX.length();
    }

    /** Changes the card named by {@code path} as {@code body} says and returns the new card as JSON. */
    static String apply(ModelCards cards, String path, JsonNode body) {
        String id = URLDecoder.decode(path.substring(PATH_PREFIX.length()), StandardCharsets.UTF_8);
        ModelCard current = cards.card(id);
        if (current == null) {
            throw new InvalidRequestException(ApiError.NOT_FOUND, "The model `" + id + "` does not exist.", "id");
        }
        if (!body.isObject()) {
            throw InvalidRequestException.badRequest("Expected a JSON object such as {\"revision\": \"r2\"}.", null);
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw InvalidRequestException.badRequest("Unknown field `" + name + "`; a model card takes root and "
                        + "revision.", name);
            }
        }
        if (body.isEmpty()) {
            throw InvalidRequestException.badRequest("Give root and/or revision to change.", null);
        }
        String root = current.root();
        if (body.has("root")) {
            root = text(body.get("root"), "root");
            if (root == null || root.isEmpty()) {
                throw InvalidRequestException.badRequest("root must be a non-empty string.", "root");
            }
        }
        String revision = current.revision();
        if (body.has("revision")) {
            revision = text(body.get("revision"), "revision");
            if (revision != null && revision.isEmpty()) {
                throw InvalidRequestException.badRequest("revision must be a non-empty string, or null for none.",
                        "revision");
            }
        }
        ModelCard card = new ModelCard(id, root, revision);
        cards.set(card);
        return json(card);
    }

    static String json(ModelCard card) {
        return "{\"id\":" + Json.quote(card.id()) + ",\"root\":" + Json.quote(card.root()) + ",\"revision\":"
                + (card.revision() == null ? "null" : Json.quote(card.revision())) + "}";
    }

    private static String text(JsonNode value, String field) {
        if (value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw InvalidRequestException.badRequest(field + " must be a string.", field);
        }
        return value.textValue();
    }
}
