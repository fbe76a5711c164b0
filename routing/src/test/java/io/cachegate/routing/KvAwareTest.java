package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.C;
import static io.cachegate.routing.Replicas.acquire;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.Balance;
import java.net.URI;
import org.junit.jupiter.api.Test;

class KvAwareTest {

    private static final String SYSTEM = "You are a careful assistant for ACME support. ".repeat(40);

    private static RoutingRequest kv(ReplicaSet set, long cost, int... uncached) {
        return RoutingRequest.withKv(cost, set.prefixHashes(SYSTEM + "question"), new KvFigures(uncached, r -> { }));
    }

    @Test
    void theReplicaHoldingThePromptWinsUntilItsQueueCostsMoreThanRecomputing() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        assertThat(acquire(set, kv(set, 100, 2000, 0, 2000)).replica()).isEqualTo(B);
        // B now carries 100 tokens: still far cheaper than prefilling 2,000 elsewhere.
        assertThat(acquire(set, kv(set, 1500, 2000, 0, 2000)).replica()).isEqualTo(B);
        // B carries 1,600 tokens; a prompt B holds only 300 tokens more of than A goes to A (0 + 300 < 1600 + 0).
        assertThat(acquire(set, kv(set, 10, 300, 0, 2000)).replica()).isEqualTo(A);
    }

    @Test
    void theChosenReplicaIsTold() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        int[] told = {-1};
        acquire(set, RoutingRequest.withKv(10, set.prefixHashes(SYSTEM), new KvFigures(new int[] {5, 5, 0},
                r -> told[0] = r)));
        assertThat(told[0]).isEqualTo(2);
    }

    @Test
    void withoutKvFiguresItIsPrefixAffinity() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        URI first = acquire(set, RoutingRequest.withBlocks(100, set.prefixHashes(SYSTEM + "hello"))).replica();
        for (int i = 0; i < 5; i++) {
            assertThat(acquire(set, RoutingRequest.withBlocks(100, set.prefixHashes(SYSTEM + "q" + i))).replica())
                    .isEqualTo(first);
        }
    }

    @Test
    void figuresForAnotherNumberOfReplicasAreRefused() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        assertThatThrownBy(() -> set.tryAcquire(kv(set, 10, 1, 2)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
