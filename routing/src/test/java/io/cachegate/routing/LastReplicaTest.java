package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Request failures never eject the last healthy replica; the probe decides, and request-caused timeouts do not count. */
class LastReplicaTest {

    private static final Duration COOL_DOWN = Duration.ofSeconds(10);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

    private final FakeTicker ticker = new FakeTicker();

    private ReplicaSet set(URI... uris) {
        return ReplicaSet.builder("main", List.of(uris))
                .settings(ReplicaSetSettings.defaults().withBreaker(new BreakerSettings(3, COOL_DOWN)))
                .ticker(ticker)
                .build();
    }

    @Test
    void recordFailure_oneReplica_neverAllDownWhileProbesPass() {
        ReplicaSet set = set(A);
        // 100 failures over 50 s (ten probe intervals, five cool-downs): each interval a passing probe.
        for (int i = 0; i < 100; i++) {
            set.recordFailure(A);
            assertThat(set.allDown()).as("after failure %d", i + 1).isFalse();
            assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
            if (i % 10 == 9) {
                ticker.advance(PROBE_INTERVAL);
                set.recordProbe(A, true);
            }
        }
        assertThat(set.status().get(0).consecutiveFailures()).isEqualTo(100);
        ReplicaLease lease = acquire(set, RoutingRequest.of(1));
        assertThat(lease.replica()).isEqualTo(A);
        assertThat(lease.trial()).isFalse();
    }

    @Test
    void recordFailure_twoReplicas_ejectsTheFailingOneAndTheOtherServes() {
        ReplicaSet set = set(A, B);
        for (int i = 0; i < 3; i++) {
            set.recordFailure(A);
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        assertThat(set.allDown()).isFalse();
        for (int i = 0; i < 10; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(1));
            assertThat(lease.replica()).isEqualTo(B);
            lease.release();
        }
    }

    @Test
    void recordFailure_otherAlreadyEjected_keepsTheLastHealthyOneIn() {
        ReplicaSet set = set(A, B);
        for (int i = 0; i < 3; i++) {
            set.recordFailure(A);
        }
        for (int i = 0; i < 10; i++) {
            set.recordFailure(B);
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        assertThat(set.state(B)).isEqualTo(CircuitState.CLOSED);
        assertThat(set.allDown()).isFalse();
        assertThat(acquire(set, RoutingRequest.of(1)).replica()).isEqualTo(B);
    }

    @Test
    void recordFailure_heldInAtTheThreshold_opensOnceAnotherReplicaIsBack() {
        ReplicaSet set = set(A, B);
        set.recordProbe(A, false);
        for (int i = 0; i < 3; i++) {
            set.recordFailure(B);
        }
        assertThat(set.state(B)).isEqualTo(CircuitState.CLOSED);
        // A's cool-down passes and a probe closes it: B's count (3, at the threshold) opens it at its next failure.
        ticker.advance(COOL_DOWN);
        set.recordProbe(A, true);
        assertThat(set.state(A)).isEqualTo(CircuitState.CLOSED);
        set.recordFailure(B);
        assertThat(set.state(B)).isEqualTo(CircuitState.OPEN);
        assertThat(acquire(set, RoutingRequest.of(1)).replica()).isEqualTo(A);
    }

    @Test
    void recordProbe_failure_stillEjectsTheLastReplica() {
        ReplicaSet set = set(A);
        set.recordFailure(A);
        set.recordProbe(A, false);
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        assertThat(set.allDown()).isTrue();
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
    }

    @Test
    void recordProbe_failure_ejectsBothOfTwoDeadReplicas() {
        ReplicaSet set = set(A, B);
        for (int i = 0; i < 3; i++) {
            set.recordFailure(A);
            set.recordFailure(B);
        }
        assertThat(set.state(A)).isEqualTo(CircuitState.OPEN);
        assertThat(set.allDown()).as("B is the last one in: its request failures alone do not eject it").isFalse();
        set.recordProbe(B, false);
        assertThat(set.allDown()).isTrue();
    }

    @Test
    void firstByteTimeout_countsOnlyWhenStreamed() {
        assertThat(FailureKind.TIMEOUT_BEFORE_FIRST_BYTE.countsAgainstReplica(false)).isFalse();
        assertThat(FailureKind.TIMEOUT_BEFORE_FIRST_BYTE.countsAgainstReplica(true)).isTrue();
        assertThat(FailureKind.STATUS_5XX.countsAgainstReplica(false)).isTrue();
        assertThat(FailureKind.CONNECT_FAILED.countsAgainstReplica(false)).isTrue();
        assertThat(FailureKind.STATUS_429.countsAgainstReplica(true)).isFalse();
    }
}
