package io.cachegate.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A client of the gateway, identified by any of its API keys; its id scopes cache entries.
 *
 * @param apiKeys its keys, held as digests with their access labels
 * @param classes the traffic classes it may ask for with {@code X-Priority}; {@code ["*"]} allows all
 * @param defaultClass its class when the request names none; empty means the route's class
 * @param limits its rate, token and concurrency limits; {@link TenantLimits#NONE} when it has none
 * @param clientCertificates SHA-256 fingerprints (64 lower-case hex digits) of the TLS client certificates
 *     that authenticate as this tenant
 * @param weight its share of a traffic class's capacity against the class's other tenants while they all wait
 *     (admission's fair order); 1 unless set
 */
public record Tenant(String id, List<ApiKey> apiKeys, List<String> classes, Optional<String> defaultClass,
                     TenantLimits limits, List<String> clientCertificates, double weight) {

    /** In {@link #classes()}: every class. */
    public static final String ANY_CLASS = "*";

    public Tenant {
        Objects.requireNonNull(id, "id");
        apiKeys = List.copyOf(apiKeys);
        classes = List.copyOf(classes);
        Objects.requireNonNull(defaultClass, "defaultClass");
        Objects.requireNonNull(limits, "limits");
        clientCertificates = List.copyOf(clientCertificates);
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be a positive number, was " + weight);
        }
    }

    /** A tenant of weight 1. */
    public Tenant(String id, List<ApiKey> apiKeys, List<String> classes, Optional<String> defaultClass,
                  TenantLimits limits, List<String> clientCertificates) {
        this(id, apiKeys, classes, defaultClass, limits, clientCertificates, 1);
    }

    /** A tenant that no client certificate authenticates. */
    public Tenant(String id, List<ApiKey> apiKeys, List<String> classes, Optional<String> defaultClass,
                  TenantLimits limits) {
        this(id, apiKeys, classes, defaultClass, limits, List.of());
    }

    /** A tenant without limits. */
    public Tenant(String id, List<ApiKey> apiKeys, List<String> classes, Optional<String> defaultClass) {
        this(id, apiKeys, classes, defaultClass, TenantLimits.NONE);
    }

    /** A tenant that may use every class and has no default class of its own; keys as a policy writes them. */
    public Tenant(String id, List<String> apiKeys) {
        this(id, apiKeys.stream().map(ApiKey::of).toList(), List.of(ANY_CLASS), Optional.empty(), TenantLimits.NONE);
    }

    /** True when this tenant may ask for {@code trafficClass} with {@code X-Priority}. */
    public boolean mayUse(String trafficClass) {
        return classes.contains(ANY_CLASS) || classes.contains(trafficClass);
    }

    @Override
    public String toString() {
        // Keys are secrets: say how many, never which.
        return "Tenant[id=" + id + ", apiKeys=" + apiKeys.size() + " key(s), classes=" + classes + ", defaultClass="
                + defaultClass + ", limits=" + limits + ", clientCertificates=" + clientCertificates.size() + ", weight="
                + weight + "]";
    }
}
