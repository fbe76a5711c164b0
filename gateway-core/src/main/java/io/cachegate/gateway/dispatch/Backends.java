package io.cachegate.gateway.dispatch;

import io.cachegate.admission.AdmissionController;
import io.cachegate.admission.AdmissionSettings;
import io.cachegate.admission.Lease;
import io.cachegate.config.Ticker;
import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import io.cachegate.config.Tenant;
import io.cachegate.gateway.metrics.AdmissionMetrics;
import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.routing.ReplicaLease;
import io.cachegate.routing.ReplicaSet;
import io.cachegate.routing.RoutingRequest;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every backend's {@link BackendDispatch}, built once from a policy. */
public final class Backends {

    private static final Logger log = LoggerFactory.getLogger(Backends.class);

    private final Map<String, BackendDispatch> byName;
    private final KvIndexes kv;

    public Backends(Policy policy, GatewayMetrics metrics, Ticker ticker) {
        boolean admission = policy.admission().enabled();
        Map<String, BackendDispatch> map = new LinkedHashMap<>();
        for (Backend backend : policy.backends()) {
            ReplicaSet replicas = ReplicaSet.builder(backend.name(), backend.urls())
                    .settings(PolicyMappings.replicaSet(backend, admission, policy.tenants().size()))
                    .ticker(ticker)
                    .listener((name, replica, from, to) -> {
                        log.info("backend {}: replica {} {} -> {}", name, replica, from, to);
                        metrics.replicaStateChanged(name, to);
                    })
                    .build();
            Optional<AdmissionController> controller = Optional.empty();
            if (admission) {
                AdmissionMetrics listener = new AdmissionMetrics(metrics.registry(), backend.name());
                AdmissionSettings settings = PolicyMappings.admission(policy.admission(), policy.classes().values(),
                        backend, replicas.requestCapacity());
                // Adaptive replicas: class in-flight shares are shares of the current sum of their limits.
                IntSupplier capacity = replicas.settings().adaptiveConcurrency() ? replicas::requestCapacity
                        : settings::capacityRequests;
                AdmissionController c = new AdmissionController(settings, request -> replicas
                        .tryAcquire((RoutingRequest) request.attachment()).map(ReplicaGateLease::new),
                        ticker, listener, capacity);
                listener.watch(c, policy.classes().keySet());
                controller = Optional.of(c);
            }
            map.put(backend.name(), new BackendDispatch(backend, replicas, PolicyMappings.retry(backend), controller,
                    UpstreamSettings.of(backend)));
        }
        this.byName = Map.copyOf(map);
        this.kv = new KvIndexes(policy.backends(), policy.server().adminToken(), metrics.registry());
    }

    /** The KV-cache indexes of the kv_aware backends: started and closed with these backends' health probes. */
    public KvIndexes kv() {
        return kv;
    }

    public BackendDispatch get(String name) {
        BackendDispatch d = byName.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no backend named " + name);
        }
        return d;
    }

    public Collection<BackendDispatch> all() {
        return byName.values();
    }

    /** Gives every backend's admission the tenants' weights in fair order; on each policy generation (live). */
    public void tenantWeights(List<Tenant> tenants) {
        Map<String, Double> weights = new HashMap<>();
        tenants.forEach(t -> weights.put(t.id(), t.weight()));
        for (BackendDispatch d : byName.values()) {
            d.admission().ifPresent(c -> c.tenantWeights(weights));
        }
    }

    /** Expires queued requests, evaluates overload and dispatches what freed capacity allows; run every tick. */
    public void tick() {
        for (BackendDispatch d : byName.values()) {
            d.admission().ifPresent(AdmissionController::tick);
        }
    }

    /** True while any backend is in overload mode: optional work (the semantic write-back) is skipped then. */
    public boolean skipOptionalWork() {
        for (BackendDispatch d : byName.values()) {
            if (d.admission().isPresent() && d.admission().get().skipOptionalWork()) {
                return true;
            }
        }
        return false;
    }

    /** Admission's view of a reserved replica: releasing the admission lease releases the replica. */
    record ReplicaGateLease(ReplicaLease replica) implements Lease {

        @Override
        public long tokens() {
            return replica.tokens();
        }

        @Override
        public void release() {
            replica.release();
        }
    }
}
