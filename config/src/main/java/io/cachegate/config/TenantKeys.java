package io.cachegate.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

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

    static final Key<Double> WEIGHT = Key.decimal("weight", 1, "(0, 1000]", v -> v > 0 && v <= 1000,
            v -> v + " is out of range (0, 1000]", "its share of a traffic class against the class's other tenants "
                    + "while requests wait (admission's fair order): 2 gets twice a tenant of 1's tokens");

    static final Key<OptionalLong> REQUESTS_PER_SECOND = Key.optionalLong("requests_per_second", "no limit", 1,
            1_000_000, "requests refilled per second, cache hits included; more get 429 rate_limit_exceeded");
    static final Key<OptionalLong> BURST = Key.optionalLong("burst", "as requests_per_second", 1, 1_000_000_000,
            "requests at once after a quiet spell (the request bucket's size); needs requests_per_second");
    static final Key<OptionalLong> TOKENS_PER_MINUTE = Key.optionalLong("tokens_per_minute", "no limit", 1,
            1_000_000_000_000L, "prompt plus completion tokens of answers from a backend (never of cache hits)");
    static final Key<OptionalLong> MAX_CONCURRENT = Key.optionalLong("max_concurrent", "no limit", 1, 1_000_000,
            "its requests in flight at once on one gateway; more get 429 at once");

    static final Key<List<String>> CLIENT_CERTIFICATES = Key.readBySection("client_certificates",
            "list of SHA-256 fingerprints", "none", "TLS client certificates that authenticate as this tenant "
                    + "without an API key: `openssl x509 -noout -fingerprint -sha256` (colons optional); needs "
                    + "server.tls.client_auth optional or require; unique across tenants");

    static final Section LIMITS = Section.mapping("limits", "per-tenant rate limits: per gateway, or shared "
            + "through Redis when cache.exact.store is redis or tiered", REQUESTS_PER_SECOND, BURST,
            TOKENS_PER_MINUTE, MAX_CONCURRENT);
    static final Section SECTION = Section.list("tenants",
            "clients of the gateway; when any are listed, every request needs an API key",
            ID, API_KEYS, CLASSES, DEFAULT_CLASS, CLIENT_CERTIFICATES, WEIGHT).with(LIMITS).live();

    private TenantKeys() {
    }
}
