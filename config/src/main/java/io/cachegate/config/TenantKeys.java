package io.cachegate.config;

import java.util.List;
import java.util.Optional;

/** The keys of each {@code tenants} item; {@link TenantsReader} reads them. */
final class TenantKeys {

    static final Key<Optional<String>> ID = Key.required("id",
            "unique; scopes the tenant's cache entries; not starting with _");
    static final Key<List<String>> API_KEYS = Key.readBySection("api_keys", "list of keys", "required",
            "each \"sha256:<64 hex>\" (cachegate hash-key prints it) or a plain key (validate warns), or {key: ..., "
                    + "labels: [hr, ...]} to give the key access labels; unique across tenants");
    /** Inside an {@code api_keys} item written as a mapping. */
    static final String KEY = "key";
    static final String LABELS = "labels";
    static final Key<List<String>> CLASSES = Key.readBySection("classes", "list of class names",
            Key.listText(List.of(Tenant.ANY_CLASS)),
            "classes it may ask for with X-Priority, or [\"*\"] for all");
    static final Key<Optional<String>> DEFAULT_CLASS = Key.readBySection("default_class", "class name",
            "the route's class", "its class when the request names none; one of its classes");

    static final Section SECTION = Section.list("tenants",
            "clients of the gateway; when any are listed, every request needs an API key",
            ID, API_KEYS, CLASSES, DEFAULT_CLASS);

    private TenantKeys() {
    }
}
