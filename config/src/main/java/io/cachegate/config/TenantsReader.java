package io.cachegate.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code tenants} list. Ids and API keys must be unique: a key shared by two tenants would
 * let one read the other's cached answers. Messages never quote a key, only where it is used.
 */
final class TenantsReader {

    private static final Set<String> KEYS = Set.of("id", "api_keys");

    private TenantsReader() {
    }

    static List<Tenant> read(Fields root) {
        List<Node> items = root.items("tenants");
        if (items == null) {
            return List.of();
        }
        List<Tenant> tenants = new ArrayList<>();
        Map<String, Integer> idLines = new HashMap<>();
        Map<String, String> keyOwners = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), "tenants[" + i + "]", KEYS);
            if (fields == null) {
                continue;
            }
            Optional<String> id = fields.required("id");
            if (id.isPresent()) {
                if (id.get().startsWith("_")) {
                    // "_shared" names the cache namespace of shared routes; no tenant may alias it.
                    fields.problem("id", Durations.quote(id.get()) + " is reserved: tenant ids may not start with _");
                }
                Integer first = idLines.putIfAbsent(id.get(), fields.line("id"));
                if (first != null) {
                    fields.problem("id", Durations.quote(id.get()) + " is already used by the tenant on line " + first);
                    continue;
                }
            }
            List<String> keys = apiKeys(fields, id.orElse("?"), keyOwners);
            id.ifPresent(value -> tenants.add(new Tenant(value, keys)));
        }
        return tenants;
    }

    private static List<String> apiKeys(Fields tenant, String id, Map<String, String> owners) {
        List<Node> items = tenant.items("api_keys");
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty()) {
            tenant.problem("api_keys", "at least one API key is required");
            return List.of();
        }
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = tenant.path("api_keys") + "[" + i + "]";
            Node item = items.get(i);
            String key = tenant.reader().text(item, path);
            if (NodeReader.isNull(item) || key != null && key.isBlank()) {
                tenant.reader().problem(item, path, "must not be empty");
            } else if (key != null) {
                String owner = owners.putIfAbsent(key, id);
                if (owner == null) {
                    keys.add(key);
                } else {
                    String who = owner.equals(id) ? "is listed twice" : "is already used by tenant " + owner;
                    tenant.reader().problem(item, path, "this API key " + who);
                }
            }
        }
        return keys;
    }
}
