package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrefixCacheTest {

    @Test
    void lookup_emptyCache_missesAndCountsQueriedBlocks() {
        PrefixCache cache = new PrefixCache(8);

        assertThat(cache.lookup(new long[] {1, 2, 3})).isZero();

        PrefixCache.Snapshot s = cache.snapshot();
        assertThat(s.blocksQueried()).isEqualTo(3);
        assertThat(s.blocksHit()).isZero();
        assertThat(s.hitRequests()).isZero();
    }

    @Test
    void lookup_afterInsert_hitsEveryBlock() {
        PrefixCache cache = new PrefixCache(8);
        cache.insert(new long[] {1, 2, 3});

        assertThat(cache.lookup(new long[] {1, 2, 3})).isEqualTo(3);

        PrefixCache.Snapshot s = cache.snapshot();
        assertThat(s.blocksHit()).isEqualTo(3);
        assertThat(s.hitRequests()).isEqualTo(1);
        assertThat(s.blocksCached()).isEqualTo(3);
        assertThat(s.capacity()).isEqualTo(8);
    }

    @Test
    void lookup_chainDiverges_countsOnlyLeadingHits() {
        PrefixCache cache = new PrefixCache(8);
        cache.insert(new long[] {1, 2, 3});

        // A longer prompt with the same two first blocks, then another third block: 2 hits of 4.
        assertThat(cache.lookup(new long[] {1, 2, 9, 10})).isEqualTo(2);
        assertThat(cache.snapshot().blocksQueried()).isEqualTo(4);
        assertThat(cache.snapshot().blocksHit()).isEqualTo(2);
    }

    @Test
    void lookup_missingHeadBlock_hitsNothingEvenIfLaterBlocksAreCached() {
        PrefixCache cache = new PrefixCache(8);
        cache.insert(new long[] {2, 3});

        assertThat(cache.lookup(new long[] {1, 2, 3})).isZero();
        assertThat(cache.snapshot().hitRequests()).isZero();
    }

    @Test
    void insert_overCapacity_evictsLeastRecentlyUsed() {
        PrefixCache cache = new PrefixCache(2);
        cache.insert(new long[] {1});
        cache.insert(new long[] {2});
        cache.lookup(new long[] {1}); // 1 becomes more recent than 2

        cache.insert(new long[] {3});

        assertThat(cache.contains(1)).isTrue();
        assertThat(cache.contains(2)).isFalse();
        assertThat(cache.contains(3)).isTrue();
        assertThat(cache.snapshot().blocksCached()).isEqualTo(2);
    }

    @Test
    void insert_chainLongerThanCapacity_keepsTheHeadAndEvictsTheTail() {
        PrefixCache cache = new PrefixCache(2);

        cache.insert(new long[] {1, 2, 3});

        assertThat(cache.contains(1)).isTrue();
        assertThat(cache.contains(2)).isTrue();
        assertThat(cache.contains(3)).isFalse();
        assertThat(cache.lookup(new long[] {1, 2, 3})).isEqualTo(2);
    }

    @Test
    void insert_newChain_evictsTailOfOlderChainFirst() {
        PrefixCache cache = new PrefixCache(4);
        cache.insert(new long[] {1, 2, 3});

        cache.insert(new long[] {7});
        cache.insert(new long[] {8});

        assertThat(cache.lookup(new long[] {1, 2, 3})).isEqualTo(2); // block 3 went first: the head still hits
    }

    @Test
    void capacityZero_isOff() {
        PrefixCache cache = new PrefixCache(0);
        cache.insert(new long[] {1});

        assertThat(cache.lookup(new long[] {1})).isZero();
        assertThat(cache.snapshot()).isEqualTo(new PrefixCache.Snapshot(0, 0, 0, 0, 0));
    }
}
