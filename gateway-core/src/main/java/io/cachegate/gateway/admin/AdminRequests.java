package io.cachegate.gateway.admin;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.cache.exact.UserDigest;
import java.io.IOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads admin request bodies strictly: a field of the wrong JSON type, an unknown field or a repeated one is refused
 * rather than coerced. A purge is the one call here that cannot be taken back, so {@code "all": "true"} or
 * {@code "all": 1} is a mistake to report, not a yes.
 */
final class AdminRequests {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION) // {"all":false,"all":true} is not "the last wins"
            .build();
    private static final Set<String> PURGE_FIELDS = Set.of("tenant", "model_version", "tag", "user", "all");

    private AdminRequests() {
    }

    /**
     * The scope of {@code POST /admin/purge}: {@code {"tenant","model_version","tag"}} (any combination),
     * {@code {"user"}} (with tenant and model_version, not tag), or {@code {"all": true}} alone.
     *
     * @throws IllegalArgumentException with the message the caller gets
     */
    static PurgeScope purge(String body) {
        JsonNode json = object(body);
        if (json == null) {
            throw new IllegalArgumentException("the body must be a JSON object");
        }
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!PURGE_FIELDS.contains(field)) {
                throw new IllegalArgumentException("unknown field '" + field
                        + "'; use tenant, model_version, tag, user or all");
            }
        }
        boolean all = bool(json, "all");
        if (all && json.size() > 1) {
            // A narrower field next to "all" says the caller meant less than everything.
            throw new IllegalArgumentException("'all' purges everything and takes no other field");
        }
        // The end user's id is digested as entries record it; the raw id is neither kept nor logged.
        return new PurgeScope(all, text(json, "tenant"), text(json, "model_version"), text(json, "tag"),
                text(json, "user").map(UserDigest::of));
    }

    /**
     * Checks the body of {@code POST /admin/reload}, which takes no parameters: empty or {@code {}}.
     *
     * @throws IllegalArgumentException with the message the caller gets
     */
    static void reload(String body) {
        if (body.isBlank()) {
            return;
        }
        JsonNode json = object(body);
        if (json == null) {
            throw new IllegalArgumentException("the body must be empty or {}");
        }
        if (json.size() > 0) {
            throw new IllegalArgumentException("unknown field '" + json.fieldNames().next()
                    + "'; a reload takes no parameters (it reads the policy file the gateway started with)");
        }
    }

    /** The body as a JSON object, or null when it is another JSON value. */
    private static JsonNode object(String body) {
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage() != null && e.getMessage().startsWith("Duplicate field")
                    ? "a field is given twice" : "the body is not valid JSON");
        }
        return json != null && json.isObject() ? json : null;
    }

    private static boolean bool(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new IllegalArgumentException("'" + field + "' must be true or false (a JSON boolean), not a "
                    + value.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return value.booleanValue();
    }

    private static Optional<String> text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual() || value.textValue().isEmpty()) {
            throw new IllegalArgumentException("'" + field + "' must be a non-empty string");
        }
        return Optional.of(value.textValue());
    }
}
