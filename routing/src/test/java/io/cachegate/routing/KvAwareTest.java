package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.C;
import static io.cachegate.routing.Replicas.acquire;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.Balance;
import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KvAwareTest {

    private static final String SYSTEM = "You are a careful assistant for ACME support. ".repeat(40);

    private static RoutingRequest kv(ReplicaSet set, long cost, int... uncached) {
        return kvPrompt(set, SYSTEM + "question", cost, uncached);
    }

    private static RoutingRequest kvPrompt(ReplicaSet set, String prompt, long cost, int... uncached) {
        return RoutingRequest.withKv(cost, set.prefixHashes(prompt), new KvFigures(uncached, r -> { }));
    }

    @Test
    void theReplicaHoldingMostOfThePromptWinsUntilSaturated() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        assertThat(acquire(set, kv(set, 100, 2000, 0, 2000)).replica()).isEqualTo(B);
        // B carries 100 tokens, the others none: far below load_factor x 0 + 4,096, so B, though A holds nearly as
        // much (the cheapest by load plus uncached would be A: 0 + 300 < 100 + 0 — no longer the rule).
        assertThat(acquire(set, kv(set, 3000, 300, 0, 2000)).replica()).isEqualTo(B);
        // B carries 3,100: a prompt A holds all of goes to A, however little more it holds.
        assertThat(acquire(set, kv(set, 100, 0, 10, 2000)).replica()).isEqualTo(A);
        // B carries 3,100 <= 1.5 x mean(100, 0) + 4,096 = 4,171: B.
        assertThat(acquire(set, kv(set, 1100, 2000, 0, 2000)).replica()).isEqualTo(B);
        // B carries 4,200 > 4,171: saturated, so the cheapest by load plus uncached: C (0 + 2,000) before
        // A (100 + 2,000) and B (4,200 + 0).
        assertThat(acquire(set, kv(set, 10, 2000, 0, 2000)).replica()).isEqualTo(C);
    }

    @Test
    void aPromptHeldNowhereGoesWhereItsFirstBlockHashesInEverySet() {
        // Two gateways: sets over the same replicas with different randoms and different loads choose alike.
        ReplicaSet one = set(Balance.KV_AWARE, A, B, C);
        ReplicaSet two = ReplicaSet.builder("main", List.of(A, B, C)).settings(ReplicaSetSettings.defaults()
                .withBalance(Balance.KV_AWARE)).ticker(new FakeTicker()).random(new SplittableRandom(7)).build();
        acquire(two, RoutingRequest.of(2000)); // some load on one replica of the second set only
        Set<URI> chosen = new HashSet<>();
        for (int g = 0; g < 30; g++) {
            String system = "Group " + g + " instructions. " + SYSTEM;
            URI first = acquire(one, kvPrompt(one, system + "first question", 10, 2000, 2000, 2000)).replica();
            URI other = acquire(two, kvPrompt(two, system + "another question", 10, 2000, 2000, 2000)).replica();
            assertThat(other).as("group %d", g).isEqualTo(first);
            chosen.add(first);
        }
        assertThat(chosen).containsExactlyInAnyOrder(A, B, C);
    }

    @Test
    void promptsHeldNowhereSpreadOverTheReplicas() {
        Map<URI, Integer> counts = new HashMap<>();
        for (int g = 0; g < 600; g++) {
            ReplicaSet set = set(Balance.KV_AWARE, A, B, C); // idle each time: only the hash decides
            URI r = acquire(set, kvPrompt(set, "Tenant " + g + " system prompt. " + SYSTEM, 10, 500, 500, 500))
                    .replica();
            counts.merge(r, 1, Integer::sum);
        }
        // 200 each expected; a binomial's 5 standard deviations (~58) either side.
        assertThat(counts.values()).hasSize(3).allSatisfy(n -> assertThat(n).isBetween(140, 260));
    }

    @Test
    void theHashedReplicaIsPassedOverWhenItsLoadExceedsTheBound() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        String system = "Group 1 instructions. " + SYSTEM;
        URI hashed = acquire(set, kvPrompt(set, system + "q0", 10, 2000, 2000, 2000)).replica();
        // Load the hashed replica to 4,010 tokens, within 1.5 x 0 + 4,096: it keeps the prefix.
        acquire(set, kvPrompt(set, system + "q1", 4000, 2000, 2000, 2000));
        assertThat(acquire(set, kvPrompt(set, system + "q2", 10, 2000, 2000, 2000)).replica()).isEqualTo(hashed);
        // 4,020 + 200 = 4,220 > 4,096: the next replica in the hash's order for every further request with that prefix.
        acquire(set, kvPrompt(set, system + "q3", 200, 2000, 2000, 2000));
        Set<URI> overflow = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            overflow.add(acquire(set, kvPrompt(set, system + "more" + i, 10, 2000, 2000, 2000)).replica());
        }
        assertThat(overflow).hasSize(1).doesNotContain(hashed);
    }

    @Test
    void equalHoldersAreTiedByTheHashNotByChance() {
        for (long seed = 0; seed < 20; seed++) {
            ReplicaSet set = ReplicaSet.builder("main", List.of(A, B, C)).settings(ReplicaSetSettings.defaults()
                    .withBalance(Balance.KV_AWARE)).ticker(new FakeTicker()).random(new SplittableRandom(seed)).build();
            ReplicaSet reference = set(Balance.KV_AWARE, A, B, C);
            // A and C both hold the prompt; B does not.
            URI chosen = acquire(set, kv(set, 10, 0, 2000, 0)).replica();
            assertThat(chosen).isIn(A, C).isEqualTo(acquire(reference, kv(reference, 10, 0, 2000, 0)).replica());
        }
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
