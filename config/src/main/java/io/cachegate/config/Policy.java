package io.cachegate.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A validated policy file: everything the gateway needs to serve, built once and never changed.
 * Obtain one from {@link PolicyLoader}; construct directly only in tests.
 *
 * @param classes traffic classes in file order (the order decides the default class)
 * @param admission class queues and overload handling; disabled by default
 */
public record Policy(String source, ServerSettings server, List<Backend> backends, List<Tenant> tenants,
                     Map<String, TrafficClass> classes, CacheSettings cache, List<Route> routes,
                     AdmissionPolicy admission) {

    public Policy {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(cache, "cache");
        backends = List.copyOf(backends);
        // A list that also carries the API key index: records cannot hold extra fields.
        tenants = TenantIndex.of(tenants);
        // Map.copyOf would lose the file order, which decides the default class.
        classes = Collections.unmodifiableMap(new LinkedHashMap<>(classes));
        routes = List.copyOf(routes);
        Objects.requireNonNull(admission, "admission");
    }

    /** A policy with admission control off. */
    public Policy(String source, ServerSettings server, List<Backend> backends, List<Tenant> tenants,
                  Map<String, TrafficClass> classes, CacheSettings cache, List<Route> routes) {
        this(source, server, backends, tenants, classes, cache, routes, AdmissionPolicy.defaults());
    }

    /** The backend with this name, if any. */
    public Optional<Backend> backend(String name) {
        for (Backend backend : backends) {
            if (backend.name().equals(name)) {
                return Optional.of(backend);
            }
        }
        return Optional.empty();
    }

    /** The tenant owning this API key, by a map lookup precomputed when the policy was built. */
    public Optional<Tenant> tenantForApiKey(String apiKey) {
        return ((TenantIndex) tenants).byApiKey(apiKey);
    }

    /** True when the policy declares tenants, so every request must carry a known API key. */
    public boolean authRequired() {
        return !tenants.isEmpty();
    }
}
