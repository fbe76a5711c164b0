package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.C;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RendezvousTest {

    private static List<Replica> replicas(URI... uris) {
        List<Replica> out = new ArrayList<>();
        for (URI u : uris) {
            out.add(new Replica(u, out.size(), BreakerSettings.defaults(), 16, null));
        }
        return out;
    }

    private static URI first(List<Replica> replicas, long key) {
        return replicas.get(Rendezvous.order(replicas, key)[0]).uri;
    }

    @Test
    void order_doesNotDependOnTheListOrder() {
        List<Replica> abc = replicas(A, B, C);
        List<Replica> cab = replicas(C, A, B);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            long key = random.nextLong();
            assertThat(first(cab, key)).isEqualTo(first(abc, key));
        }
    }

    @Test
    void order_removingAReplicaMovesOnlyTheKeysItRankedFirst() {
        List<Replica> abc = replicas(A, B, C);
        List<Replica> ac = replicas(A, C);
        SplittableRandom random = new SplittableRandom(2);
        int moved = 0;
        for (int i = 0; i < 3000; i++) {
            long key = random.nextLong();
            URI before = first(abc, key);
            if (before.equals(B)) {
                moved++;
            } else {
                assertThat(first(ac, key)).isEqualTo(before);
            }
        }
        assertThat(moved).isBetween(850, 1150);
    }
}
