package io.cachegate.gateway.dispatch;

import io.cachegate.admission.AdmissionSettings;
import io.cachegate.admission.ClassSettings;
import io.cachegate.config.AdmissionPolicy;
import io.cachegate.config.Backend;
import io.cachegate.config.TrafficClass;
import io.cachegate.routing.BreakerSettings;
import io.cachegate.routing.ReplicaSetSettings;
import io.cachegate.routing.RetryPolicy;
import java.time.Duration;
import java.util.Collection;

/**
 * What the gateway derives from the policy for routing and admission: replica capacity (bounded only with
 * admission), the breaker from the health settings, the retry backoff cap, and each backend's admission
 * capacity and classes. The balance, prefix-affinity and overload records pass through unchanged.
 */
final class PolicyMappings {

    private PolicyMappings() {
    }

    /**
     * The backend's replica settings. Without admission control a replica has no request or token bound here
     * (the connection pool bounds it, as before); with it, {@code max_concurrency} and {@code max_inflight_tokens},
     * or without {@code max_concurrency} ({@code auto}) a request limit each replica finds from its time to first
     * token, up to {@link ReplicaSetSettings#ADAPTIVE_CEILING}. With several tenants, request failures eject a
     * replica only when they come from two of them: one tenant's bad requests are not the replica's ill health.
     */
    static ReplicaSetSettings replicaSet(Backend backend, boolean admission, int tenants) {
        ReplicaSetSettings settings = ReplicaSetSettings.defaults()
                .withBalance(backend.balance())
                .withBreaker(new BreakerSettings(backend.health().failuresToEject(), backend.health().ejectFor())
                        .withTenantsToEject(tenants > 1 ? 2 : 1))
                .withAffinity(backend.prefixAffinity());
        if (!admission) {
            return settings.withCapacity(Integer.MAX_VALUE, ReplicaSetSettings.UNLIMITED_TOKENS);
        }
        return backend.maxConcurrency().isPresent()
                ? settings.withCapacity(backend.maxConcurrency().getAsInt(), backend.maxInflightTokens())
                : settings.withAdaptiveCapacity(ReplicaSetSettings.ADAPTIVE_CEILING, backend.maxInflightTokens());
    }

    static RetryPolicy retry(Backend backend) {
        Duration base = backend.retries().backoff();
        return new RetryPolicy(backend.retries().maxAttempts(), base, RetryPolicy.DEFAULT_MAX_BACKOFF.compareTo(base) < 0
                ? base : RetryPolicy.DEFAULT_MAX_BACKOFF);
    }

    /**
     * The admission settings of one backend: its request capacity is what the classes' in-flight shares cap.
     * With an adaptive capacity ({@code max_concurrency} absent or auto) this is {@code adaptiveNow}, the replicas'
     * limits summed as they start; {@link Backends} then gives the controller the replica set's current sum, so a
     * share stays a share of what the backend runs now.
     */
    static AdmissionSettings admission(AdmissionPolicy policy, Collection<TrafficClass> classes, Backend backend,
                                       int adaptiveNow) {
        long capacity = backend.maxConcurrency().isPresent()
                ? (long) backend.maxConcurrency().getAsInt() * backend.urls().size() : adaptiveNow;
        AdmissionSettings.Builder builder = AdmissionSettings.builder()
                .overload(policy.overload())
                .initialDrainRate(policy.initialDrainRate())
                .shedOnPrior(policy.initialDrainRateSet())
                .maxRetryAfter(policy.maxRetryAfter())
                .fairShare(policy.fairShare())
                .capacityRequests((int) Math.min(Integer.MAX_VALUE - 1, capacity));
        for (TrafficClass c : classes) {
            builder.addClass(ClassSettings.builder(c.name())
                    .priority(c.priority())
                    .maxQueueTime(c.maxQueueTime())
                    .share(c.share())
                    .mayDegrade(c.mayDegrade())
                    .maxQueueRequests(c.maxQueueDepth())
                    .maxQueueTokens(c.maxQueueTokens())
                    .pausable(c.pausable())
                    .maxInflightShare(c.maxInflightShare())
                    .build());
        }
        return builder.build();
    }
}
