package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.acquire;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import org.junit.jupiter.api.Test;

class CapacityTest {

    private static ReplicaSet limited(int requests, long tokens, java.net.URI... uris) {
        return set(ReplicaSetSettings.defaults().withCapacity(requests, tokens), new FakeTicker(), uris);
    }

    @Test
    void tryAcquire_respectsMaxConcurrency() {
        ReplicaSet set = limited(2, ReplicaSetSettings.UNLIMITED_TOKENS, A);
        ReplicaLease first = acquire(set, RoutingRequest.of(1));
        acquire(set, RoutingRequest.of(1));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        first.release();
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isPresent();
    }

    @Test
    void tryAcquire_respectsMaxInflightTokens() {
        ReplicaSet set = limited(64, 1000, A);
        ReplicaLease big = acquire(set, RoutingRequest.of(600));
        assertThat(set.tryAcquire(RoutingRequest.of(500))).isEmpty();
        ReplicaLease fits = acquire(set, RoutingRequest.of(400));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        fits.release();
        big.release();
        assertThat(set.tryAcquire(RoutingRequest.of(1000))).isPresent();
    }

    @Test
    void tryAcquire_oversizedRequest_takesAnIdleReplicaAlone() {
        ReplicaSet set = limited(64, 1000, A);
        ReplicaLease huge = acquire(set, RoutingRequest.of(5000));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        huge.release();
        acquire(set, RoutingRequest.of(1));
        assertThat(set.tryAcquire(RoutingRequest.of(5000))).isEmpty();
    }

    @Test
    void tryAcquire_fullReplica_overflowsToAnother() {
        ReplicaSet set = limited(1, ReplicaSetSettings.UNLIMITED_TOKENS, A, B);
        ReplicaLease first = acquire(set, RoutingRequest.of(1));
        ReplicaLease second = acquire(set, RoutingRequest.of(1));
        assertThat(second.replica()).isNotEqualTo(first.replica());
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
        assertThat(set.allDown()).isFalse();
    }

    @Test
    void release_isIdempotent() {
        ReplicaSet set = limited(1, 1000, A);
        ReplicaLease lease = acquire(set, RoutingRequest.of(700));
        assertThat(set.status().get(0).inflightTokens()).isEqualTo(700);
        lease.release();
        lease.release();
        assertThat(lease.released()).isTrue();
        ReplicaStatus status = set.status().get(0);
        assertThat(status.inflightRequests()).isZero();
        assertThat(status.inflightTokens()).isZero();
        acquire(set, RoutingRequest.of(1));
        assertThat(set.tryAcquire(RoutingRequest.of(1))).isEmpty();
    }

    @Test
    void externalLoad_steersButDoesNotBlock() {
        ReplicaSet set = limited(64, 1000, A);
        set.recordExternalLoad(A, 100, 1.0);
        assertThat(set.tryAcquire(RoutingRequest.of(900))).isPresent();
    }
}
