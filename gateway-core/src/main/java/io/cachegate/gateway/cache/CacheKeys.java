package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.RouteCachePolicy;
import io.cachegate.config.Policy;
import java.util.Optional;

/** Builds exact-cache keys: tenant namespace, model version, context hash and the canonical request. */
public final class CacheKeys {

    private final Policy policy;
    private final ModelVersions versions;
    private final ExactKeyFactory keys = new ExactKeyFactory();

    public CacheKeys(Policy policy, ModelVersions versions) {
        this.policy = policy;
        this.versions = versions;
    }

    public ModelVersions versions() {
        return versions;
    }

    ExactKeyFactory factory() {
        return keys;
    }

    CacheKey key(Dialect dialect, ObjectNode body, RouteCachePolicy routePolicy, String tenant, String version,
                 String context) {
        byte[] canonical = CanonicalRequest.of(dialect, body, routePolicy.canonicalOptions());
        return keys.key(routePolicy.namespace(tenant), version, context, canonical);
    }

    /**
     * The key of one item of {@code c}'s embeddings batch: {@code c}'s namespace, model version and context, and
     * {@link CanonicalRequest#embeddingItem} of its {@code parameters} (the body without its input) and the item.
     */
    public CacheKey itemKey(CacheableRequest c, ObjectNode parameters, JsonNode item) {
        byte[] canonical = CanonicalRequest.embeddingItem(parameters, item, c.routePolicy().canonicalOptions());
        return keys.key(c.routePolicy().namespace(c.tenant()), c.key().modelVersion(), c.context(), canonical);
    }

    /**
     * The key of {@code c}'s answer when {@code model} on {@code backendName} (a route's fallback) gives it: the
     * request with that model, under that model's version. Empty while the version is unknown.
     */
    public Optional<CacheKey> keyAnsweredBy(CacheableRequest c, String backendName, String model) {
        return policy.backend(backendName).flatMap(b -> versions.versionFor(b, model)).map(version ->
                key(c.dialect(), c.body().deepCopy().put("model", model), c.routePolicy(), c.tenant(), version,
                        c.context()));
    }
}
