package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrefixCacheTest {

    /** A prompt of one-token blocks: block i holds {@code ids[i]}, so equal leading ids mean equal leading blocks. */
    private static PromptBlocks prompt(int... ids) {
        return PromptBlocks.ofTokens("m", ids, 1);
    }

    /** A request from start to end: finds what it finds, stores its prompt at its prefill, releases it at its end. */
    private static int run(PrefixCache cache, PromptBlocks p) {
        PrefixCache.Hold hold = cache.acquire(p);
        cache.store(hold);
        cache.release(hold);
        return hold.hits();
    }

    private static java.util.Set<Long> keys(long... blocks) {
        return java.util.Arrays.stream(blocks).boxed().collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void acquire_emptyCache_missesAndCountsQueriedBlocks() {
        PrefixCache cache = new PrefixCache(8);

        assertThat(cache.acquire(prompt(1, 2, 3)).hits()).isZero();

        PrefixCache.Snapshot s = cache.snapshot();
        assertThat(s.blocksQueried()).isEqualTo(3);
        assertThat(s.blocksHit()).isZero();
        assertThat(s.hitRequests()).isZero();
    }

    @Test
    void acquire_afterARequestRan_hitsEveryBlock() {
        PrefixCache cache = new PrefixCache(8);
        run(cache, prompt(1, 2, 3));

        assertThat(cache.acquire(prompt(1, 2, 3)).hits()).isEqualTo(3);

        PrefixCache.Snapshot s = cache.snapshot();
        assertThat(s.blocksHit()).isEqualTo(3);
        assertThat(s.hitRequests()).isEqualTo(1);
        assertThat(s.blocksCached()).isEqualTo(3);
        assertThat(s.capacity()).isEqualTo(8);
    }

    /** A clock whose prefill takes {@code perBlock} nanoseconds a block not found. */
    private static PrefixCache.PrefillClock perBlock(int blocks, long perBlock) {
        return (found, startAt) -> startAt + (blocks - found) * perBlock;
    }

    @Test
    void acquire_beforeTheOtherRequestsPrefillEnds_findsItBeingComputedAndStartsAtItsEnd() {
        PrefixCache cache = new PrefixCache(8);
        PrefixCache.Hold first = cache.acquire(prompt(1, 2, 3), 0, perBlock(3, 100));

        PrefixCache.Hold second = cache.acquire(prompt(1, 2, 3, 4), 50, perBlock(4, 100));

        assertThat(first.firstTokenAt()).isEqualTo(300);
        assertThat(second.hits()).as("being computed: found, as vLLM's scheduler finds it").isEqualTo(3);
        assertThat(second.firstTokenAt()).as("the first's prefill, then its own one block").isEqualTo(400);
        assertThat(cache.snapshot().waitRequests()).isEqualTo(1);
        assertThat(cache.snapshot().blocksCached()).as("nothing stored before a prefill ends").isZero();
        PrefixCache.Hold third = cache.acquire(prompt(1, 2, 3, 4, 5), 60, perBlock(5, 100));
        assertThat(third.hits()).as("chains on the second's block being computed too").isEqualTo(4);
        assertThat(third.firstTokenAt()).isEqualTo(500);

        cache.store(first);
        assertThat(cache.acquire(prompt(1, 2, 3)).hits()).as("stored at its prefill's end, before it ends").isEqualTo(3);
        cache.store(second);
        cache.store(third);
        assertThat(cache.blocks()).isEqualTo(keys(prompt(1, 2, 3, 4, 5).chain()));
    }

    @Test
    void release_beforeItsPrefillEnded_itsBlocksAreNoLongerBeingComputed() {
        PrefixCache cache = new PrefixCache(8);
        PrefixCache.Hold cancelled = cache.acquire(prompt(1, 2, 3), 0, perBlock(3, 100));
        PrefixCache.Hold waiting = cache.acquire(prompt(1, 2), 10, perBlock(2, 100));
        cache.release(cancelled);

        PrefixCache.Hold later = cache.acquire(prompt(1, 2, 3), 20, perBlock(3, 100));

        assertThat(waiting.hits()).isEqualTo(2);
        assertThat(later.hits()).as("nobody computes the third block now; the waiter's two it never registered").isZero();
        assertThat(later.firstTokenAt()).isEqualTo(320);
        cache.store(waiting); // the waiter stores what it counted found: cache and events stay one
        assertThat(cache.blocks()).isEqualTo(keys(prompt(1, 2).chain()));
    }

    @Test
    void acquire_chainDiverges_countsOnlyLeadingHits() {
        PrefixCache cache = new PrefixCache(8);
        run(cache, prompt(1, 2, 3));
        PrefixCache.Snapshot before = cache.snapshot();

        // A longer prompt with the same two first blocks, then another third block: 2 hits of 4.
        assertThat(cache.acquire(prompt(1, 2, 9, 10)).hits()).isEqualTo(2);
        assertThat(cache.snapshot().blocksQueried() - before.blocksQueried()).isEqualTo(4);
        assertThat(cache.snapshot().blocksHit() - before.blocksHit()).isEqualTo(2);
    }

    @Test
    void acquire_missingHeadBlock_hitsNothingEvenIfLaterBlocksAreCached() {
        PrefixCache cache = new PrefixCache(8);
        run(cache, prompt(1, 2, 3));

        assertThat(cache.acquire(prompt(7, 2, 3)).hits()).isZero(); // chained: block 2 after 7 is another block
        assertThat(cache.snapshot().hitRequests()).isZero();
    }

    @Test
    void store_overCapacity_evictsLeastRecentlyReleased() {
        PrefixCache cache = new PrefixCache(2);
        PromptBlocks one = prompt(1);
        PromptBlocks two = prompt(2);
        run(cache, one);
        run(cache, two);
        run(cache, one); // 1 is released again: more recent than 2

        run(cache, prompt(3));

        assertThat(cache.contains(one.chain()[0])).isTrue();
        assertThat(cache.contains(two.chain()[0])).isFalse();
        assertThat(cache.snapshot().blocksCached()).isEqualTo(2);
    }

    @Test
    void release_chainLongerThanCapacity_keepsTheHeadAndEvictsTheTail() {
        PrefixCache cache = new PrefixCache(2);
        PromptBlocks p = prompt(1, 2, 3);
        PrefixCache.Hold hold = cache.acquire(p);
        cache.store(hold);

        assertThat(cache.snapshot().blocksCached()).as("all held while it runs").isEqualTo(3);
        cache.release(hold);

        assertThat(cache.blocks()).isEqualTo(keys(p.chain()[0], p.chain()[1]));
        assertThat(cache.acquire(p).hits()).isEqualTo(2);
    }

    @Test
    void store_newChain_evictsTailOfOlderChainFirst() {
        PrefixCache cache = new PrefixCache(4);
        PromptBlocks p = prompt(1, 2, 3);
        run(cache, p);

        run(cache, prompt(7));
        run(cache, prompt(8));

        assertThat(cache.acquire(p).hits()).isEqualTo(2); // block 3 went first: the head still hits
    }

    @Test
    void store_blocksARunningRequestHolds_areNeverEvicted() {
        PrefixCache cache = new PrefixCache(3);
        PromptBlocks running = prompt(1, 2, 3);
        PrefixCache.Hold hold = cache.acquire(running);
        cache.store(hold);

        run(cache, prompt(7, 8)); // over capacity: only its own blocks, released, can go

        for (long block : running.chain()) {
            assertThat(cache.contains(block)).isTrue();
        }
        assertThat(cache.snapshot().blocksCached()).isEqualTo(3);
    }

    @Test
    void store_blocksFoundAtTheStart_areHeldUntilTheEnd() {
        PrefixCache cache = new PrefixCache(3);
        PromptBlocks shared = prompt(1, 2, 3);
        run(cache, shared);
        PrefixCache.Hold reader = cache.acquire(shared); // hits all three, holds them

        run(cache, prompt(7, 8, 9));

        assertThat(cache.blocks()).isEqualTo(keys(shared.chain()));
        cache.release(reader);
        run(cache, prompt(7, 8, 9));
        assertThat(cache.contains(shared.chain()[0])).isFalse();
    }

    @Test
    void release_twice_releasesOnce() {
        PrefixCache cache = new PrefixCache(2);
        PromptBlocks shared = prompt(1);
        run(cache, shared);
        PrefixCache.Hold a = cache.acquire(shared);
        PrefixCache.Hold b = cache.acquire(shared); // both hold block 1

        cache.release(a);
        cache.release(a);
        run(cache, prompt(5));
        run(cache, prompt(6));

        assertThat(cache.contains(shared.chain()[0])).as("b still holds it").isTrue();
        cache.release(b);
    }

    @Test
    void store_afterRelease_storesNothing() {
        PrefixCache cache = new PrefixCache(8);
        PrefixCache.Hold cancelled = cache.acquire(prompt(1, 2));
        cache.release(cancelled); // cancelled before its prefill ended

        cache.store(cancelled);

        assertThat(cache.snapshot().blocksCached()).isZero();
    }

    @Test
    void capacityZero_isOff() {
        PrefixCache cache = new PrefixCache(0);
        run(cache, prompt(1));

        assertThat(cache.acquire(prompt(1)).hits()).isZero();
        assertThat(cache.snapshot()).isEqualTo(new PrefixCache.Snapshot(0, 0, 0, 0, 0, 0));
    }
}
