package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** With several tenants, one tenant's failing requests never eject a replica the others are served by. */
class TenantFailuresTest {

    private static final Duration COOL_DOWN = Duration.ofSeconds(10);

    private final FakeTicker ticker = new FakeTicker();

    private ReplicaSet set(int tenantsToEject) {
        return ReplicaSet.builder("main", List.of(A, B))
                .settings(ReplicaSetSettings.defaults()
                        .withBreaker(new BreakerSettings(3, COOL_DOWN).withTenantsToEject(tenantsToEject)))
                .ticker(ticker)
                .build();
    }

    @Test
    void recordFailure_oneTenantAlone_neverEjects() {
        ReplicaSet set = set(2);
        for (int i = 0; i < 50; i++) {
            set.recordFailure(A, "acme");
            ticker.advance(Duration.ofMillis(100));
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        assertThat(set.status().get(0).consecutiveFailures()).isEqualTo(50);
        // Two requests held at once are balanced over both replicas: A still takes its share.
        ReplicaLease first = acquire(set, RoutingRequest.of(1));
        ReplicaLease second = acquire(set, RoutingRequest.of(1));
        assertThat(List.of(first.replica(), second.replica())).containsExactlyInAnyOrder(A, B);
        first.release();
        second.release();
    }

    @Test
    void recordFailure_aSecondTenantFailingToo_ejects() {
        ReplicaSet set = set(2);
        set.recordFailure(A, "acme");
        set.recordFailure(A, "acme");
        set.recordFailure(A, "acme");
        assertThat(set.state(A)).as("3 failures, the threshold, all acme's").isEqualTo(CircuitState.CLOSED);

        set.recordFailure(A, "globex");

        assertThat(set.state(A)).as("the replica fails two tenants: it is unwell").isEqualTo(CircuitState.OPEN);
        assertThat(acquire(set, RoutingRequest.of(1)).replica()).isEqualTo(B);
    }

    @Test
    void recordFailure_successInBetween_startsTheTenantsOver() {
        ReplicaSet set = set(2);
        set.recordFailure(A, "globex");
        set.recordSuccess(A);           // the run ends: globex's failure is forgotten with it
        for (int i = 0; i < 5; i++) {
            set.recordFailure(A, "acme");
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void recordFailure_oneTenantPolicy_ejectsAtTheThresholdAsBefore() {
        ReplicaSet set = set(1);
        for (int i = 0; i < 3; i++) {
            set.recordFailure(A, "acme");
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void recordProbe_failing_stillEjectsWhateverTheTenants() {
        ReplicaSet set = set(2);
        set.recordFailure(A, "acme");
        set.recordProbe(A, false);
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
    }
}
