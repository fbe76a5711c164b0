package io.cachegate.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code tenants} list. Ids and API keys must be unique: a key shared by two tenants would
 * let one read the other's cached answers. Messages never quote a key, only where it is used. The
 * classes a tenant may use are checked against the classes already read. Keys in {@link TenantKeys}.
 */
final class TenantsReader {

    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{64}");

    private TenantsReader() {
    }

    static List<Tenant> read(Fields root, Map<String, TrafficClass> classes) {
        Section section = TenantKeys.SECTION;
        List<Node> items = root.items(section.name());
        if (items == null) {
            return List.of();
        }
        List<Tenant> tenants = new ArrayList<>();
        Map<String, Integer> idLines = new HashMap<>();
        Map<String, String> keyOwners = new HashMap<>();
        Map<String, String> certificateOwners = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = root.reader().fields(items.get(i), section.name() + "[" + i + "]", section.names());
            if (fields == null) {
                continue;
            }
            Optional<String> id = fields.get(TenantKeys.ID);
            if (id.isPresent()) {
                if (id.get().startsWith("_")) {
                    // "_shared" names the cache namespace of shared routes; no tenant may alias it.
                    fields.problem(TenantKeys.ID.name(), Durations.quote(id.get())
                            + " is reserved: tenant ids may not start with _");
                }
                Integer first = idLines.putIfAbsent(id.get(), fields.line(TenantKeys.ID.name()));
                if (first != null) {
                    fields.problem(TenantKeys.ID.name(), Durations.quote(id.get())
                            + " is already used by the tenant on line " + first);
                    continue;
                }
            }
            List<ApiKey> keys = apiKeys(fields, id.orElse("?"), keyOwners);
            List<String> allowed = classes(fields, classes.keySet());
            Optional<String> defaultClass = defaultClass(fields, classes.keySet(), allowed);
            TenantLimits limits = limits(fields);
            List<String> certificates = clientCertificates(fields, id.orElse("?"), certificateOwners);
            double weight = fields.get(TenantKeys.WEIGHT);
            id.ifPresent(value -> tenants.add(new Tenant(value, keys, allowed, defaultClass, limits, certificates,
                    weight)));
        }
        return tenants;
    }

    /**
     * {@code api_keys}: each {@code sha256:<hex>}, a plain key, or {@code {key: ..., labels: [...]}}. Keys are
     * unique by digest, so a plain key and its sha256: form on two tenants are one shared key.
     */
    private static List<ApiKey> apiKeys(Fields tenant, String id, Map<String, String> owners) {
        String name = TenantKeys.API_KEYS.name();
        List<Node> items = tenant.items(name);
        if (items == null) {
            return List.of();
        }
        if (items.isEmpty() && !tenant.has(name) && tenant.has(TenantKeys.CLIENT_CERTIFICATES.name())) {
            return List.of(); // authenticated by client certificate alone
        }
        if (items.isEmpty()) {
            tenant.problem(name, "at least one API key is required");
            return List.of();
        }
        List<ApiKey> keys = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = tenant.path(name) + "[" + i + "]";
            Node item = items.get(i);
            ApiKey apiKey = item instanceof MappingNode ? keyWithLabels(tenant.reader(), item, path) : key(
                    tenant.reader(), item, path, List.of());
            if (apiKey == null) {
                continue;
            }
            String owner = owners.putIfAbsent(apiKey.hex(), id);
            if (owner == null) {
                keys.add(apiKey);
            } else {
                String who = owner.equals(id) ? "is listed twice" : "is already used by tenant " + owner;
                tenant.reader().problem(item, path, "this API key " + who);
            }
        }
        return keys;
    }

    private static ApiKey keyWithLabels(NodeReader reader, Node item, String path) {
        Fields fields = reader.fields(item, path, Set.of(TenantKeys.KEY, TenantKeys.LABELS));
        if (fields == null) {
            return null;
        }
        if (!fields.has(TenantKeys.KEY)) {
            fields.problem(TenantKeys.KEY, "required");
            return null;
        }
        int before = reader.problemCount();
        List<String> labels = fields.strings(TenantKeys.LABELS, List.of());
        for (int i = 0; i < labels.size(); i++) {
            String label = labels.get(i);
            String labelPath = fields.path(TenantKeys.LABELS) + "[" + i + "]";
            if (!AccessLabel.valid(label)) {
                reader.problem(fields.node(TenantKeys.LABELS), labelPath, Durations.quote(label)
                        + " is not a label: letters, digits, _ . - only (at most 64)");
            } else if (labels.indexOf(label) != i) {
                reader.problem(fields.node(TenantKeys.LABELS), labelPath, Durations.quote(label) + " is listed twice");
            }
        }
        ApiKey key = key(reader, fields.node(TenantKeys.KEY), fields.path(TenantKeys.KEY), labels);
        return reader.problemCount() == before ? key : null;
    }

    /** One key's text; never quoted in a problem, which names only its place. */
    private static ApiKey key(NodeReader reader, Node node, String path, List<String> labels) {
        String text = reader.text(node, path);
        if (NodeReader.isNull(node) || text != null && text.isBlank()) {
            reader.problem(node, path, "must not be empty");
            return null;
        }
        if (text == null) {
            return null; // a wrong type, already reported
        }
        try {
            return ApiKey.parse(text, labels);
        } catch (IllegalArgumentException e) {
            reader.problem(node, path, e.getMessage());
            return null;
        }
    }

    /**
     * {@code client_certificates}: SHA-256 fingerprints as {@code openssl x509 -fingerprint -sha256} prints them
     * (colons and case do not matter), held as 64 lower-case hex digits; unique across tenants.
     */
    private static List<String> clientCertificates(Fields tenant, String id, Map<String, String> owners) {
        String name = TenantKeys.CLIENT_CERTIFICATES.name();
        if (!tenant.has(name)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        List<String> written = tenant.strings(name, List.of());
        for (int i = 0; i < written.size(); i++) {
            String path = tenant.path(name) + "[" + i + "]";
            String hex = written.get(i).strip().replace(":", "").toLowerCase(Locale.ROOT);
            if (!FINGERPRINT.matcher(hex).matches()) {
                tenant.reader().problem(tenant.node(name), path, Durations.quote(written.get(i))
                        + " is not a SHA-256 fingerprint: 64 hex digits, colons allowed"
                        + " (openssl x509 -noout -fingerprint -sha256 -in client.pem)");
                continue;
            }
            String owner = owners.putIfAbsent(hex, id);
            if (owner == null) {
                out.add(hex);
            } else {
                String who = owner.equals(id) ? "is listed twice" : "is already used by tenant " + owner;
                tenant.reader().problem(tenant.node(name), path, "this client certificate " + who);
            }
        }
        return out;
    }

    /** {@code classes}: declared class names, or {@code "*"} for all (the default); each item with its line. */
    private static List<String> classes(Fields tenant, Set<String> known) {
        String key = TenantKeys.CLASSES.name();
        List<String> all = List.of(Tenant.ANY_CLASS);
        List<Node> items = tenant.items(key);
        if (items == null || !tenant.has(key)) {
            return all;
        }
        if (items.isEmpty()) {
            tenant.problem(key, "must list at least one class (or leave it out: every class)");
            return all;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = tenant.path(key) + "[" + i + "]";
            Node item = items.get(i);
            String name = tenant.reader().text(item, path);
            if (NodeReader.isNull(item) || name != null && name.isBlank()) {
                tenant.reader().problem(item, path, "must not be empty");
            } else if (name == null) {
                continue; // a wrong type, already reported
            } else if (out.contains(name)) {
                tenant.reader().problem(item, path, Durations.quote(name) + " is listed twice");
            } else if (name.equals(Tenant.ANY_CLASS) || known.contains(name)) {
                out.add(name);
            } else {
                tenant.reader().problem(item, path, "no class named " + Durations.quote(name)
                        + Suggestions.didYouMean(name, known));
            }
        }
        if (out.contains(Tenant.ANY_CLASS) && out.size() > 1) {
            tenant.problem(key, "\"*\" already allows every class; list names or \"*\" alone");
            return all;
        }
        return out.isEmpty() ? all : out;
    }

    /** {@code limits}: each one optional; a burst needs a rate to refill it. */
    private static TenantLimits limits(Fields tenant) {
        Fields limits = tenant.section(TenantKeys.LIMITS);
        if (limits == null) {
            return TenantLimits.NONE;
        }
        OptionalLong rate = limits.get(TenantKeys.REQUESTS_PER_SECOND);
        OptionalLong burst = limits.get(TenantKeys.BURST);
        if (burst.isPresent() && !limits.has(TenantKeys.REQUESTS_PER_SECOND.name())) {
            limits.problem(TenantKeys.BURST.name(), "needs requests_per_second, the rate that refills it");
        }
        return new TenantLimits(rate, burst, limits.get(TenantKeys.TOKENS_PER_MINUTE),
                limits.get(TenantKeys.MAX_CONCURRENT));
    }

    /** {@code default_class}: a declared class this tenant may use. */
    private static Optional<String> defaultClass(Fields tenant, Set<String> known, List<String> allowed) {
        String key = TenantKeys.DEFAULT_CLASS.name();
        Optional<String> name = tenant.reference(key, known, "class");
        if (name.isPresent() && !allowed.contains(Tenant.ANY_CLASS) && !allowed.contains(name.get())) {
            tenant.problem(key, Durations.quote(name.get()) + " is not among this tenant's classes "
                    + allowed);
            return Optional.empty();
        }
        return name;
    }
}
