package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrefixIndexTest {

    @Test
    void longestMatch_countsSharedLeadingBlocks() {
        PrefixIndex index = new PrefixIndex(100);
        index.record(PrefixHashes.of("S".repeat(50) + "question one", 10, 100));
        assertThat(index.longestMatch(PrefixHashes.of("S".repeat(50) + "other question", 10, 100))).isEqualTo(5);
        assertThat(index.longestMatch(PrefixHashes.of("T".repeat(60), 10, 100))).isZero();
        assertThat(index.longestMatch(PrefixHashes.empty())).isZero();
    }

    @Test
    void record_isBoundedByEntries() {
        PrefixIndex index = new PrefixIndex(8);
        for (int i = 0; i < 50; i++) {
            index.record(PrefixHashes.of(i + "-".repeat(40), 10, 100));
        }
        assertThat(index.size()).isEqualTo(8);
    }

    @Test
    void record_evictsTailBlocksBeforeLeadingOnes() {
        PrefixIndex index = new PrefixIndex(6);
        PrefixHashes shared = PrefixHashes.of("P".repeat(40) + "Q".repeat(40), 10, 100);
        index.record(shared);
        // 8 blocks into 6 entries: the two last blocks went, the prefix of six survives.
        assertThat(index.longestMatch(shared)).isEqualTo(6);
        index.record(PrefixHashes.of("Z".repeat(30), 10, 100));
        assertThat(index.longestMatch(shared)).isEqualTo(3);
    }

    @Test
    void longestMatch_doesNotRefreshEntries() {
        PrefixIndex index = new PrefixIndex(2);
        PrefixHashes a = PrefixHashes.of("a".repeat(10), 10, 100);
        PrefixHashes b = PrefixHashes.of("b".repeat(10), 10, 100);
        index.record(a);
        index.record(b);
        index.longestMatch(a);
        index.record(PrefixHashes.of("c".repeat(10), 10, 100));
        assertThat(index.longestMatch(a)).isZero();
        assertThat(index.longestMatch(b)).isEqualTo(1);
    }
}
