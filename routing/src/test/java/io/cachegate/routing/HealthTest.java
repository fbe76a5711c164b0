package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthTest {

    private static final Duration COOL_DOWN = Duration.ofSeconds(10);

    private final FakeTicker ticker = new FakeTicker();
    private final List<String> changes = new ArrayList<>();

    private ReplicaSet set(URI... uris) {
        return ReplicaSet.builder("main", List.of(uris))
                .settings(ReplicaSetSettings.defaults().withBreaker(new BreakerSettings(3, COOL_DOWN)))
                .ticker(ticker)
                .listener((backend, replica, from, to) -> changes.add(backend + " " + replica.getHost() + " " + from
                        + "->" + to))
                .build();
    }

    @Test
    void recordFailure_thresholdConsecutive_ejects() {
        ReplicaSet set = set(A, B);
        set.recordFailure(A);
        set.recordFailure(A);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        set.recordFailure(A);
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        assertThat(changes).containsExactly("main 10.0.0.1 CLOSED->OPEN");
        for (int i = 0; i < 10; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(1));
            assertThat(lease.replica()).isEqualTo(B);
            lease.release();
        }
    }

    @Test
    void recordSuccess_resetsTheFailureCount() {
        ReplicaSet set = set(A);
        set.recordFailure(A);
        set.recordFailure(A);
        set.recordSuccess(A);
        set.recordFailure(A);
        set.recordFailure(A);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        assertThat(set.status().get(0).consecutiveFailures()).isEqualTo(2);
    }

    @Test
    void openCircuit_afterCoolDown_letsExactlyOneTrialThenCloses() {
        ReplicaSet set = set(A);
        eject(set, A);
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        assertThat(set.allDown()).isTrue();
        ticker.advance(COOL_DOWN.minusMillis(1));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        ticker.advance(Duration.ofMillis(1));
        assertThat(set.allDown()).isFalse();
        ReplicaLease trial = acquire(set, RoutingRequest.of(1));
        assertThat(trial.trial()).isTrue();
        assertThat(set.state(A)).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        assertThat(set.allDown()).isTrue();
        set.recordSuccess(A);
        trial.release();
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        assertThat(acquire(set, RoutingRequest.of(1)).trial()).isFalse();
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isPresent();
        assertThat(changes).containsExactly("main 10.0.0.1 CLOSED->OPEN", "main 10.0.0.1 OPEN->HALF_OPEN",
                "main 10.0.0.1 HALF_OPEN->CLOSED");
    }

    @Test
    void failedTrial_reopensForAnotherCoolDown() {
        ReplicaSet set = set(A);
        eject(set, A);
        ticker.advance(COOL_DOWN);
        ReplicaLease trial = acquire(set, RoutingRequest.of(1));
        set.recordFailure(A);
        trial.release();
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        ticker.advance(COOL_DOWN.minusMillis(1));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        ticker.advance(Duration.ofMillis(1));
        assertThat(acquire(set, RoutingRequest.of(1)).trial()).isTrue();
    }

    @Test
    void abandonedTrial_freesTheTrialSlot() {
        ReplicaSet set = set(A);
        eject(set, A);
        ticker.advance(COOL_DOWN);
        acquire(set, RoutingRequest.of(1)).release();
        assertThat(set.state(A)).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(acquire(set, RoutingRequest.of(1)).trial()).isTrue();
    }

    @Test
    void recordProbe_failureEjectsAtOnce_passClosesOnlyAfterCoolDown() {
        ReplicaSet set = set(A, B);
        set.recordProbe(A, false);
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        set.recordProbe(A, true);
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        ticker.advance(COOL_DOWN);
        set.recordProbe(A, true);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        assertThat(changes).containsExactly("main 10.0.0.1 CLOSED->OPEN", "main 10.0.0.1 OPEN->HALF_OPEN",
                "main 10.0.0.1 HALF_OPEN->CLOSED");
    }

    @Test
    void recordProbe_passWithNoOtherReplicaIn_closesAtOnce() {
        ReplicaSet set = set(A);
        set.recordProbe(A, false);
        assertThat(set.allDown()).isTrue();
        ticker.advance(Duration.ofSeconds(1));
        set.recordProbe(A, true);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        assertThat(set.allDown()).isFalse();
        assertThat(acquire(set, RoutingRequest.of(1)).trial()).isFalse();
        assertThat(changes).containsExactly("main 10.0.0.1 CLOSED->OPEN", "main 10.0.0.1 OPEN->CLOSED");
    }

    @Test
    void recordProbe_passWhileEveryOtherReplicaIsOut_closesAtOnce_notOnceOneServes() {
        ReplicaSet set = set(A, B);
        set.recordProbe(A, false);
        set.recordProbe(B, false);
        set.recordProbe(A, true);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        set.recordProbe(B, true);
        assertThat(set.state(B)).as("A serves: B sits out its cool-down").isEqualTo(CircuitState.OPEN);
        ticker.advance(COOL_DOWN);
        set.recordProbe(B, true);
        assertThat(set.state(B)).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void recordProbe_failureWhileOpen_restartsTheCoolDown() {
        ReplicaSet set = set(A);
        set.recordProbe(A, false);
        ticker.advance(COOL_DOWN.minusSeconds(1));
        set.recordProbe(A, false);
        ticker.advance(Duration.ofSeconds(2));
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void lateFailure_whileOpen_doesNotExtendTheCoolDown() {
        ReplicaSet set = set(A);
        eject(set, A);
        ticker.advance(COOL_DOWN.minusSeconds(1));
        set.recordFailure(A);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(set.state(A)).isEqualTo(CircuitState.HALF_OPEN);
    }

    @Test
    void allDown_onlyWhenEveryReplicaIsEjected() {
        ReplicaSet set = set(A, B);
        eject(set, A);
        assertThat(set.allDown()).isFalse();
        eject(set, B);
        assertThat(set.allDown()).isTrue();
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
    }

    @Test
    void unknownReplica_isIgnored() {
        ReplicaSet set = set(A);
        URI stranger = URI.create("http://10.9.9.9:8000");
        set.recordFailure(stranger);
        set.recordProbe(stranger, false);
        set.recordExternalLoad(stranger, 5, 1);
        assertThat(set.state(stranger)).isEqualTo(CircuitState.CLOSED);
        assertThat(set.allDown()).isFalse();
        assertThat(changes).isEmpty();
    }

    /** A failed probe: request failures alone no longer eject the last healthy replica (see LastReplicaTest). */
    private static void eject(ReplicaSet set, URI replica) {
        set.recordProbe(replica, false);
    }
}
