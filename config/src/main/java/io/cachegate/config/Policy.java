package io.cachegate.config;

import java.util.ArrayList;
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
 * @param telemetry traces (OTLP export); off by default
 * @param log the access and audit log, and sampled requests
 * @param prices what models' tokens cost, in file order, for the cost hits saved
 * @param tree the YAML it was read from, for a reload; not part of its equality (see {@link #equals})
 */
public record Policy(String source, ServerSettings server, List<Backend> backends, List<Tenant> tenants,
                     Map<String, TrafficClass> classes, CacheSettings cache, List<Route> routes,
                     AdmissionPolicy admission, TelemetrySettings telemetry, LogSettings log,
                     List<ModelPrice> prices, PolicyTree tree) {

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
        Objects.requireNonNull(telemetry, "telemetry");
        Objects.requireNonNull(log, "log");
        prices = List.copyOf(prices);
        Objects.requireNonNull(tree, "tree");
    }

    /** A policy built in code: a reload has no tree to re-read. */
    public Policy(String source, ServerSettings server, List<Backend> backends, List<Tenant> tenants,
                  Map<String, TrafficClass> classes, CacheSettings cache, List<Route> routes,
                  AdmissionPolicy admission, TelemetrySettings telemetry, LogSettings log,
                  List<ModelPrice> prices) {
        this(source, server, backends, tenants, classes, cache, routes, admission, telemetry, log, prices,
                PolicyTree.NONE);
    }

    /** A policy without traces, with the default log and no prices. */
    public Policy(String source, ServerSettings server, List<Backend> backends, List<Tenant> tenants,
                  Map<String, TrafficClass> classes, CacheSettings cache, List<Route> routes,
                  AdmissionPolicy admission) {
        this(source, server, backends, tenants, classes, cache, routes, admission, TelemetrySettings.defaults(),
                LogSettings.defaults(), List.of());
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

    /** The tenant owning this API key: the key is hashed, looked up by digest and compared in constant time. */
    public Optional<Tenant> tenantForApiKey(String apiKey) {
        return credential(apiKey).map(Credential::tenant);
    }

    /** The tenant and the key (with its labels) that this presented API key matches, if any. */
    public Optional<Credential> credential(String apiKey) {
        return ((TenantIndex) tenants).byApiKey(apiKey);
    }

    /**
     * The tenant a verified TLS client certificate authenticates: {@code fingerprint} is the SHA-256 of its DER
     * encoding in lower-case hex. A fingerprint cannot be forged the way a subject name can be issued twice.
     */
    public Optional<Tenant> tenantForCertificate(String fingerprint) {
        return ((TenantIndex) tenants).byCertificate(fingerprint);
    }

    /**
     * What loads but should change, for {@code cachegate validate}: each API key written in plain text. The
     * problems name the key's place ({@code tenants[0].api_keys[1]}), never the key.
     */
    public List<PolicyProblem> warnings() {
        List<PolicyProblem> warnings = new ArrayList<>();
        for (int i = 0; i < tenants.size(); i++) {
            List<ApiKey> keys = tenants.get(i).apiKeys();
            for (int j = 0; j < keys.size(); j++) {
                if (!keys.get(j).hashed()) {
                    warnings.add(new PolicyProblem(source, 0, "tenants[" + i + "].api_keys[" + j + "]",
                            "a plain API key; write its sha256: form instead (cachegate hash-key prints it)"));
                }
            }
        }
        return List.copyOf(warnings);
    }

    /** Equal settings from an equally named source; the tree is how a file spelled them, not what they are. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Policy p && source.equals(p.source) && server.equals(p.server)
                && backends.equals(p.backends) && tenants.equals(p.tenants) && classes.equals(p.classes)
                && cache.equals(p.cache) && routes.equals(p.routes) && admission.equals(p.admission)
                && telemetry.equals(p.telemetry) && log.equals(p.log) && prices.equals(p.prices);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, server, backends, tenants, classes, cache, routes, admission, telemetry, log,
                prices);
    }

    /** True when the policy declares tenants, so every request must carry a known API key. */
    public boolean authRequired() {
        return !tenants.isEmpty();
    }
}
