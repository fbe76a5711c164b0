package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.C;
import static io.cachegate.routing.Replicas.acquire;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Balance;
import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BalanceTest {

    @Test
    void defaults_areLeastLoaded() {
        assertThat(ReplicaSetSettings.defaults().balance()).isEqualTo(Balance.LEAST_LOADED);
    }

    @Test
    void leastLoaded_picksFewestInflightTokens() {
        ReplicaSet set = set(Balance.LEAST_LOADED, A, B, C);
        ReplicaLease big = acquire(set, RoutingRequest.of(300));
        ReplicaLease mid = acquire(set, RoutingRequest.of(200));
        ReplicaLease small = acquire(set, RoutingRequest.of(100));
        assertThat(Set.of(big.replica(), mid.replica(), small.replica())).hasSize(3);
        assertThat(acquire(set, RoutingRequest.of(50)).replica()).isEqualTo(small.replica());
        assertThat(acquire(set, RoutingRequest.of(50)).replica()).isEqualTo(small.replica());
        // small's replica now holds 200 like mid's: the next goes to one of the two, never to big's.
        assertThat(acquire(set, RoutingRequest.of(10)).replica()).isIn(small.replica(), mid.replica());
    }

    @Test
    void leastLoaded_tiesSpreadOverAllReplicas() {
        ReplicaSet set = set(Balance.LEAST_LOADED, A, B, C);
        Set<URI> seen = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(10));
            seen.add(lease.replica());
            lease.release();
        }
        assertThat(seen).containsExactlyInAnyOrder(A, B, C);
    }

    @Test
    void leastLoaded_tiedTokens_twoChoicesAvoidTheBusierReplica() {
        ReplicaSet set = set(Balance.LEAST_LOADED, A, B, C);
        // Two zero-cost requests held on A: tokens still tie at 0, but A has more requests.
        acquire(set, new RoutingRequest(0, Optional.empty(), Set.of(B, C)));
        acquire(set, new RoutingRequest(0, Optional.empty(), Set.of(B, C)));
        Set<URI> seen = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(0));
            seen.add(lease.replica());
            lease.release();
        }
        assertThat(seen).containsExactlyInAnyOrder(B, C);
    }

    @Test
    void leastLoaded_countsFreshExternalLoad_ignoresStale() {
        FakeTicker ticker = new FakeTicker();
        ReplicaSet set = set(ReplicaSetSettings.defaults(), ticker, A, B);
        set.recordExternalLoad(A, 3, 0.5);
        assertThat(set.status().get(0).externalLoadTokens()).isEqualTo(3 * 1024 + 4096);
        for (int i = 0; i < 10; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(100));
            assertThat(lease.replica()).isEqualTo(B);
            lease.release();
        }
        ticker.advance(Duration.ofSeconds(31));
        assertThat(set.status().get(0).externalLoadTokens()).isZero();
        ReplicaLease onB = acquire(set, RoutingRequest.of(100));
        assertThat(acquire(set, RoutingRequest.of(100)).replica()).isNotEqualTo(onB.replica());
    }

    @Test
    void roundRobin_takesEachReplicaInTurn() {
        ReplicaSet set = set(Balance.ROUND_ROBIN, A, B, C);
        List<URI> picks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ReplicaLease lease = acquire(set, RoutingRequest.of(1));
            picks.add(lease.replica());
            lease.release();
        }
        assertThat(picks).containsExactly(A, B, C, A, B, C);
    }

    @Test
    void roundRobin_skipsExcludedAndEjected() {
        ReplicaSet set = set(Balance.ROUND_ROBIN, A, B, C);
        set.recordProbe(B, false);
        List<URI> picks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            picks.add(acquire(set, RoutingRequest.of(1)).replica());
        }
        assertThat(picks).containsExactly(A, C, A, C);
        assertThat(acquire(set, RoutingRequest.of(1).excluding(A)).replica()).isEqualTo(C);
    }

    @Test
    void excluding_everyReplica_isEmpty() {
        ReplicaSet set = set(Balance.LEAST_LOADED, A, B);
        assertThat(set.tryAcquire(RoutingRequest.of(1).excluding(A).excluding(B))).isEmpty();
        assertThat(set.allDown()).isFalse();
    }
}
