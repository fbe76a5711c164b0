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
        // From then on the hashed replica holds the prefix (it is computing it for this gateway): 10 tokens to go there.
        int[] held = {2000, 2000, 2000};
        held[List.of(A, B, C).indexOf(hashed)] = 10;
        // Load the hashed replica to 4,010 tokens, within 1.5 x 0 + 4,096: it keeps the prefix.
        acquire(set, kvPrompt(set, system + "q1", 4000, held));
        assertThat(acquire(set, kvPrompt(set, system + "q2", 10, held)).replica()).isEqualTo(hashed);
        // 4,020 + 200 = 4,220 > 4,096: the soonest first token elsewhere for every further request with that prefix.
        acquire(set, kvPrompt(set, system + "q3", 200, held));
        Set<URI> overflow = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            overflow.add(acquire(set, kvPrompt(set, system + "more" + i, 10, held)).replica());
        }
        assertThat(overflow).doesNotContain(hashed);
    }

    @Test
    void aHolderBehindALongQueueOfPrefills_isPassedOverUntilItsAnswersBegin() {
        ReplicaSet set = set(Balance.KV_AWARE, A, B, C);
        // Two prompts only A holds some of: A prefills 2,000 tokens of each (its backlog 4,000).
        ReplicaLease first = acquire(set, kvPrompt(set, "First. " + SYSTEM, 10, 2000, 9000, 9000));
        ReplicaLease second = acquire(set, kvPrompt(set, "Second. " + SYSTEM, 10, 2000, 9000, 9000));
        assertThat(List.of(first.replica(), second.replica())).containsOnly(A);
        // A prompt A holds all of: its first token there comes after 4,000 tokens of prefill, elsewhere after 2,000,
        // more than half a prefill of it sooner: elsewhere.
        assertThat(acquire(set, kv(set, 10, 0, 2000, 2000)).replica()).isNotEqualTo(A);
        // Within half a prefill of the soonest, the holder keeps it: A's backlog down to 2,000 after one answer began.
        first.answerBegun();
        first.answerBegun(); // counted once
        assertThat(set.status().get(0).prefillBacklogTokens()).isEqualTo(2000);
        assertThat(acquire(set, kv(set, 10, 0, 2000, 2000)).replica()).isEqualTo(A);
        // A released lease leaves the backlog too, and an answer begun before it does not leave it twice.
        second.release();
        first.release();
        assertThat(acquire(set, kv(set, 10, 0, 1, 1)).replica()).isEqualTo(A);
        assertThat(set.status().get(0).prefillBacklogTokens()).isZero();
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
