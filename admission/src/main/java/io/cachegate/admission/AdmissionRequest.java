package io.cachegate.admission;

import java.util.Objects;

/**
 * A request asking for backend capacity.
 *
 * @param trafficClass the resolved class (see {@link ClassResolver})
 * @param tokens its weight: estimated prompt tokens plus max_tokens (see {@link TokenEstimator#cost})
 * @param tenant the tenant id, {@code ""} when no tenants are configured
 * @param attachment anything the gateway wants back in {@link CapacityGate#tryAcquire}, may be null
 */
public record AdmissionRequest(String trafficClass, long tokens, String tenant, Object attachment) {

    public AdmissionRequest {
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(tenant, "tenant");
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must not be negative, was " + tokens);
        }
    }

    public static AdmissionRequest of(String trafficClass, long tokens) {
        return new AdmissionRequest(trafficClass, tokens, "", null);
    }
}
