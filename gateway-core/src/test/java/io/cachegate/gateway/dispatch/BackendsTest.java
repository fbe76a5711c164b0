package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.routing.ReplicaLease;
import io.cachegate.routing.ReplicaSet;
import io.cachegate.routing.ReplicaSetSettings;
import io.cachegate.routing.ReplicaStatus;
import io.cachegate.routing.RoutingRequest;
import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link Backends} builds from a policy: admission controllers and each replica set's capacity. */
class BackendsTest {

    private static final URI REPLICA = URI.create("http://replica-a:8000");

    private static Backends backends(Policy policy) {
        return new Backends(policy, new GatewayMetrics(), new FakeTicker());
    }

    private static Policy withBackend(String backend, boolean admission) {
        return Exchanges.policy("""
                backends:
                  - {name: main, urls: ["http://replica-a:8000"], model_version: "m@1"%s}
                admission: {enabled: %b}
                """.formatted(backend, admission));
    }

    private static ReplicaStatus status(ReplicaSet replicas) {
        return replicas.status().get(0);
    }

    @Test
    void new_embeddedDefaultPolicy_admissionOnWithAdaptiveCapacity() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(name -> null).embeddedDefault();

        Backends backends = backends(policy);

        assertThat(backends.all()).isNotEmpty().allSatisfy(d -> {
            assertThat(d.admission()).as(d.name() + " admission").isPresent();
            assertThat(d.replicas().settings().adaptiveConcurrency()).as(d.name() + " adaptive").isTrue();
            assertThat(d.replicas().settings().maxConcurrency()).isEqualTo(ReplicaSetSettings.ADAPTIVE_CEILING);
        });
    }

    @Test
    void new_noMaxConcurrency_limitAdaptsToTimeToFirstToken() {
        ReplicaSet replicas = backends(withBackend("", true)).get("main").replicas();
        int start = status(replicas).requestLimit();

        for (int i = 0; i < 200; i++) { // a full replica answering in a flat 100 ms grows its limit
            List<ReplicaLease> leases = new ArrayList<>();
            while (leases.size() < status(replicas).requestLimit()) {
                leases.add(replicas.tryAcquire(RoutingRequest.of(1)).orElseThrow());
            }
            assertThat(replicas.tryAcquire(RoutingRequest.of(1))).as("never above the limit").isEmpty();
            replicas.recordSuccess(REPLICA, 100_000_000L);
            leases.forEach(ReplicaLease::release);
        }

        assertThat(status(replicas).requestLimit()).isGreaterThan(start);
    }

    @Test
    void new_explicitMaxConcurrency_fixedAndNeverAdapted() {
        ReplicaSet replicas = backends(withBackend(", max_concurrency: 3", true)).get("main").replicas();

        for (int i = 0; i < 100; i++) {
            replicas.recordSuccess(REPLICA, 100_000_000L);
        }

        assertThat(replicas.settings().adaptiveConcurrency()).isFalse();
        assertThat(status(replicas).requestLimit()).isEqualTo(3);
    }

    @Test
    void new_admissionOff_noRequestBoundAndNoAdaptation() {
        ReplicaSet replicas = backends(withBackend("", false)).get("main").replicas();

        assertThat(replicas.settings().adaptiveConcurrency()).isFalse();
        assertThat(status(replicas).requestLimit()).isEqualTo(Integer.MAX_VALUE);
    }
}
