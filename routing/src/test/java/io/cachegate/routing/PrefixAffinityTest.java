package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static io.cachegate.routing.Replicas.C;
import static io.cachegate.routing.Replicas.acquire;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.Balance;
import io.cachegate.config.PrefixAffinitySettings;
import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrefixAffinityTest {

    private static final String SYSTEM = "You are a careful assistant for ACME support. ".repeat(40);
    private static final String OTHER_SYSTEM = "Tu es un traducteur professionnel, précis et concis. ".repeat(40);

    @Test
    void samePrefix_sticksToOneReplica() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        URI first = acquire(set, prompt(set, 100, SYSTEM + "How do I reset my password?")).replica();
        for (int i = 0; i < 20; i++) {
            // Leases are held: the sticky replica gets busier, still within the slack.
            ReplicaLease lease = acquire(set, prompt(set, 100, SYSTEM + "Question number " + i));
            assertThat(lease.replica()).isEqualTo(first);
        }
    }

    @Test
    void differentPrefix_goesToTheLeastLoaded() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        URI first = acquire(set, prompt(set, 1000, SYSTEM + "hello")).replica();
        URI other = acquire(set, prompt(set, 1000, OTHER_SYSTEM + "bonjour")).replica();
        assertThat(other).isNotEqualTo(first);
        assertThat(acquire(set, prompt(set, 10, OTHER_SYSTEM + "salut")).replica()).isEqualTo(other);
    }

    @Test
    void longestMatchingPrefix_wins() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        String document = "Clause 7.2: the supplier shall deliver within thirty days. ".repeat(30);
        acquire(set, promptExcluding(set, 1, SYSTEM + "short chat", B, C)).release();
        acquire(set, promptExcluding(set, 1, SYSTEM + document + "summarise", A, C)).release();
        assertThat(acquire(set, prompt(set, 10, SYSTEM + document + "list the clauses")).replica())
                .isEqualTo(B);
    }

    @Test
    void expectedCachedChars_isTheLongestRunOfBlocksOneReplicaWasSent() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        String document = "Clause 7.2: the supplier shall deliver within thirty days. ".repeat(30);
        assertThat(set.expectedCachedChars(set.prefixHashes(SYSTEM + "first question"))).as("nothing sent yet").isZero();
        acquire(set, prompt(set, 10, SYSTEM + "first question")).release();

        PrefixHashes again = set.prefixHashes(SYSTEM + document + "second question");
        int held = set.expectedCachedChars(again);
        assertThat(held).as("the system prompt's whole blocks").isEqualTo(SYSTEM.length() / 256 * 256);
        assertThat(set.expectedCachedChars(set.prefixHashes(OTHER_SYSTEM + "bonjour"))).isZero();
        assertThat(set.expectedCachedChars(PrefixHashes.empty())).isZero();
    }

    @Test
    void saturatedStickyReplica_overflowsToLeastLoaded() {
        PrefixAffinitySettings affinity = new PrefixAffinitySettings(256, 16_384, 1.5, 1024, 1000);
        ReplicaSet set = set(ReplicaSetSettings.defaults().withBalance(Balance.PREFIX_AFFINITY).withAffinity(affinity),
                new FakeTicker(), A, B, C);
        ReplicaLease sticky = acquire(set, prompt(set, 900, SYSTEM + "q0"));
        // 900 <= 1.5 × 0 + 1000: still sticky.
        assertThat(acquire(set, prompt(set, 200, SYSTEM + "q1")).replica()).isEqualTo(sticky.replica());
        // 1100 > 1000: overloaded relative to the idle others.
        URI overflow = acquire(set, prompt(set, 10, SYSTEM + "q2")).replica();
        assertThat(overflow).isNotEqualTo(sticky.replica());
    }

    @Test
    void overloadRule_isRelativeToTheOthers() {
        PrefixAffinitySettings affinity = new PrefixAffinitySettings(256, 16_384, 1.5, 1024, 1000);
        ReplicaSet set = set(ReplicaSetSettings.defaults().withBalance(Balance.PREFIX_AFFINITY).withAffinity(affinity),
                new FakeTicker(), A, B);
        acquire(set, promptExcluding(set, 4000, OTHER_SYSTEM, A, C));
        ReplicaLease sticky = acquire(set, promptExcluding(set, 6000, SYSTEM + "q0", B, C));
        // A holds 6000 <= 1.5 × 4000 + 1000 = 7000: stays sticky although it is the busier one.
        assertThat(acquire(set, prompt(set, 10, SYSTEM + "q1")).replica()).isEqualTo(sticky.replica());
        assertThat(acquire(set, prompt(set, 10, SYSTEM + "q1")).replica()).isEqualTo(sticky.replica());
        acquire(set, promptExcluding(set, 1000, SYSTEM, B, C));
        assertThat(acquire(set, prompt(set, 10, SYSTEM + "q2")).replica()).isEqualTo(B);
    }

    @Test
    void noPrompt_fallsBackToLeastLoaded() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        Set<URI> seen = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            seen.add(acquire(set, RoutingRequest.of(100)).replica());
        }
        assertThat(seen).containsExactlyInAnyOrder(A, B, C);
    }

    @Test
    void blocksHashedOutsideTheSet_withItsRule_stickLikeItsOwn() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B, C);
        URI first = acquire(set, prompt(set, 100, SYSTEM + "one")).replica();
        PrefixAffinitySettings rule = set.settings().affinity();
        PrefixHashes blocks = PrefixHashes.of(SYSTEM + "two", rule.blockChars(), rule.maxBlocksPerPrompt());
        assertThat(acquire(set, RoutingRequest.withBlocks(100, blocks)).replica()).isEqualTo(first);
    }

    @Test
    void precomputedBlocks_ofAnotherBlockSize_areRejected() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A);
        PrefixHashes wrong = PrefixHashes.of(SYSTEM, 64, 100);
        assertThatThrownBy(() -> set.tryAcquire(RoutingRequest.withBlocks(1, wrong))).hasMessageContaining("64");
    }

    @Test
    void recordedBlocks_areCountedPerReplica() {
        ReplicaSet set = set(Balance.PREFIX_AFFINITY, A, B);
        URI chosen = acquire(set, prompt(set, 1, "z".repeat(256 * 3 + 10))).replica();
        ReplicaStatus status = set.status().get(chosen.equals(A) ? 0 : 1);
        assertThat(status.indexedBlocks()).isEqualTo(3);
    }

    /** A request carrying {@code prompt}'s blocks as the gateway hashes them, with the set's own rule. */
    private static RoutingRequest prompt(ReplicaSet set, long cost, String prompt) {
        return RoutingRequest.withBlocks(cost, set.prefixHashes(prompt));
    }

    private static RoutingRequest promptExcluding(ReplicaSet set, long cost, String prompt, URI... excluded) {
        return new RoutingRequest(cost, Optional.of(set.prefixHashes(prompt)), Set.of(excluded));
    }
}
