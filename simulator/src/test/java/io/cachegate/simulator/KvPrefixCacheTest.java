package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The events a token-block {@link PrefixCache} publishes describe exactly how it changed. */
class KvPrefixCacheTest {

    private static final int BS = 2;

    private final List<List<KvEvent>> batches = new ArrayList<>();
    private final KvEventSink sink = events -> batches.add(events);

    /** A prompt of {@code blocks} token blocks whose ids start at {@code first} (distinct starts, distinct chains). */
    private static PromptBlocks prompt(int first, int blocks) {
        int[] ids = new int[blocks * BS + 1]; // a partial last block, never cached
        for (int i = 0; i < ids.length; i++) {
            ids[i] = first + i;
        }
        return PromptBlocks.ofTokens("m", ids, BS);
    }

    private Set<Long> replayed() {
        Set<Long> view = new HashSet<>();
        for (List<KvEvent> batch : batches) {
            for (KvEvent event : batch) {
                if (event instanceof KvEvent.BlockStored stored) {
                    for (long h : stored.blockHashes()) {
                        view.add(h);
                    }
                } else if (event instanceof KvEvent.BlockRemoved removed) {
                    for (long h : removed.blockHashes()) {
                        view.remove(h);
                    }
                } else {
                    view.clear();
                }
            }
        }
        return view;
    }

    @Test
    void insert_newPrompt_storesOneRunFromTheRoot() {
        PrefixCache cache = new PrefixCache(10, sink);
        PromptBlocks p = prompt(0, 3);

        cache.insert(p);

        assertThat(batches).hasSize(1);
        KvEvent.BlockStored stored = (KvEvent.BlockStored) batches.get(0).get(0);
        assertThat(stored.blockHashes()).containsExactly(p.chain());
        assertThat(stored.parentBlockHash()).isNull();
        assertThat(stored.tokenIds()).containsExactly(0, 1, 2, 3, 4, 5); // 3 blocks × 2, not the partial 7th
        assertThat(stored.blockSize()).isEqualTo(BS);
    }

    @Test
    void insert_extendedPrompt_storesOnlyTheNewTailWithItsParent() {
        PrefixCache cache = new PrefixCache(10, sink);
        int[] ids = {1, 2, 3, 4, 5, 6, 7, 8};
        cache.insert(PromptBlocks.ofTokens("m", java.util.Arrays.copyOf(ids, 4), BS));

        PromptBlocks longer = PromptBlocks.ofTokens("m", ids, BS);
        cache.insert(longer);
        cache.insert(longer); // nothing new: no batch

        assertThat(batches).hasSize(2);
        KvEvent.BlockStored tail = (KvEvent.BlockStored) batches.get(1).get(0);
        assertThat(tail.blockHashes()).containsExactly(longer.chain()[2], longer.chain()[3]);
        assertThat(tail.parentBlockHash()).isEqualTo(longer.chain()[1]);
        assertThat(tail.tokenIds()).containsExactly(5, 6, 7, 8);
    }

    @Test
    void insert_evicting_storesAndRemovesInOneBatch() {
        PrefixCache cache = new PrefixCache(4, sink);
        PromptBlocks a = prompt(0, 3);
        PromptBlocks b = prompt(100, 3);
        cache.insert(a);

        cache.insert(b);

        assertThat(batches).hasSize(2);
        List<KvEvent> second = batches.get(1);
        assertThat(second).hasSize(2);
        assertThat(((KvEvent.BlockStored) second.get(0)).blockHashes()).containsExactly(b.chain());
        // a's tail went first (tail-first eviction): its head still hits.
        assertThat(((KvEvent.BlockRemoved) second.get(1)).blockHashes()).containsExactly(a.chain()[2], a.chain()[1]);
        assertThat(replayed()).isEqualTo(cache.blocks());
    }

    @Test
    void insert_chainLongerThanCapacity_reportsOnlyWhatStays() {
        PrefixCache cache = new PrefixCache(2, sink);
        PromptBlocks p = prompt(0, 5);

        cache.insert(p);

        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).hasSize(1); // the evicted tail was never visible
        assertThat(((KvEvent.BlockStored) batches.get(0).get(0)).blockHashes()).containsExactly(p.chain()[0],
                p.chain()[1]);
        assertThat(replayed()).isEqualTo(cache.blocks());
    }

    @Test
    void insert_cachedHeadEvictedAndStoredAgain_isNoEvent() {
        // The head is the eldest entry: putting the tail first evicts it, then it is stored again.
        PrefixCache cache = new PrefixCache(3, sink);
        int[] ids = {1, 2, 3, 4, 5, 6};
        PromptBlocks head = PromptBlocks.ofTokens("m", java.util.Arrays.copyOf(ids, 2), BS);
        cache.insert(head);
        cache.insert(prompt(100, 2));
        PromptBlocks full = PromptBlocks.ofTokens("m", ids, BS);

        cache.insert(full);

        assertThat(replayed()).isEqualTo(cache.blocks());
        assertThat(cache.blocks()).contains(full.chain()[0], full.chain()[1], full.chain()[2]);
        for (KvEvent event : batches.get(2)) {
            if (event instanceof KvEvent.BlockRemoved removed) {
                assertThat(removed.blockHashes()).doesNotContain(full.chain()[0]);
            }
        }
    }

    @Test
    void randomWorkload_replayedEventsAlwaysEqualTheCache() {
        java.util.Random random = new java.util.Random(7);
        PrefixCache cache = new PrefixCache(12, sink);
        for (int i = 0; i < 500; i++) {
            int[] ids = new int[BS * (1 + random.nextInt(8))];
            int family = random.nextInt(4);
            for (int t = 0; t < ids.length; t++) {
                ids[t] = t < 6 ? family * 1000 + t : random.nextInt(3) + t * 10; // shared heads, few variants
            }
            PromptBlocks p = PromptBlocks.ofTokens("m", ids, BS);
            cache.lookup(p.chain());
            cache.insert(p);
            assertThat(replayed()).isEqualTo(cache.blocks());
        }
    }

    @Test
    void charBlocks_publishNothing() {
        PrefixCache cache = new PrefixCache(10, sink);

        cache.insert(PromptBlocks.of("m", "x".repeat(100), 10));

        assertThat(batches).isEmpty();
        assertThat(cache.snapshot().blocksCached()).isEqualTo(10);
    }
}
