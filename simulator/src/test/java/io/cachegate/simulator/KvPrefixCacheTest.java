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

    /** A request from start to end: finds what it finds, stores its prompt at its prefill, releases it at its end. */
    private static void run(PrefixCache cache, PromptBlocks p) {
        PrefixCache.Hold hold = cache.acquire(p);
        cache.store(hold);
        cache.release(hold);
    }

    private static java.util.Set<Long> keys(long... blocks) {
        return java.util.Arrays.stream(blocks).boxed().collect(java.util.stream.Collectors.toSet());
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
    void store_newPrompt_storesOneRunFromTheRoot() {
        PrefixCache cache = new PrefixCache(10, sink);
        PromptBlocks p = prompt(0, 3);

        run(cache, p);

        assertThat(batches).hasSize(1);
        KvEvent.BlockStored stored = (KvEvent.BlockStored) batches.get(0).get(0);
        assertThat(stored.blockHashes()).containsExactly(p.chain());
        assertThat(stored.parentBlockHash()).isNull();
        assertThat(stored.tokenIds()).containsExactly(0, 1, 2, 3, 4, 5); // 3 blocks × 2, not the partial 7th
        assertThat(stored.blockSize()).isEqualTo(BS);
    }

    @Test
    void store_atThePrefillsEnd_publishesBeforeTheRequestEnds() {
        PrefixCache cache = new PrefixCache(10, sink);
        PromptBlocks p = prompt(0, 3);
        PrefixCache.Hold hold = cache.acquire(p);
        assertThat(batches).as("a lookup publishes nothing").isEmpty();

        cache.store(hold);

        assertThat(batches).hasSize(1);
        assertThat(replayed()).isEqualTo(keys(p.chain()));
        cache.release(hold);
        assertThat(batches).as("under capacity its end changes nothing").hasSize(1);
    }

    @Test
    void store_extendedPrompt_storesOnlyTheNewTailWithItsParent() {
        PrefixCache cache = new PrefixCache(10, sink);
        int[] ids = {1, 2, 3, 4, 5, 6, 7, 8};
        run(cache, PromptBlocks.ofTokens("m", java.util.Arrays.copyOf(ids, 4), BS));

        PromptBlocks longer = PromptBlocks.ofTokens("m", ids, BS);
        run(cache, longer);
        run(cache, longer); // nothing new: no batch

        assertThat(batches).hasSize(2);
        KvEvent.BlockStored tail = (KvEvent.BlockStored) batches.get(1).get(0);
        assertThat(tail.blockHashes()).containsExactly(longer.chain()[2], longer.chain()[3]);
        assertThat(tail.parentBlockHash()).isEqualTo(longer.chain()[1]);
        assertThat(tail.tokenIds()).containsExactly(5, 6, 7, 8);
    }

    @Test
    void store_evicting_storesAndRemovesInOneBatch() {
        PrefixCache cache = new PrefixCache(4, sink);
        PromptBlocks a = prompt(0, 3);
        PromptBlocks b = prompt(100, 3);
        run(cache, a);

        run(cache, b);

        assertThat(batches).hasSize(2);
        List<KvEvent> second = batches.get(1);
        assertThat(second).hasSize(2);
        assertThat(((KvEvent.BlockStored) second.get(0)).blockHashes()).containsExactly(b.chain());
        // a's tail went first (released tail first): its head still hits.
        assertThat(((KvEvent.BlockRemoved) second.get(1)).blockHashes()).containsExactly(a.chain()[2], a.chain()[1]);
        assertThat(replayed()).isEqualTo(cache.blocks());
    }

    @Test
    void release_chainLongerThanCapacity_removesItsTailAtTheEnd() {
        PrefixCache cache = new PrefixCache(2, sink);
        PromptBlocks p = prompt(0, 5);
        PrefixCache.Hold hold = cache.acquire(p);

        cache.store(hold);
        assertThat(replayed()).as("held while it runs").isEqualTo(keys(p.chain()));
        cache.release(hold);

        assertThat(batches).hasSize(2);
        assertThat(((KvEvent.BlockRemoved) batches.get(1).get(0)).blockHashes()).containsExactly(p.chain()[4],
                p.chain()[3], p.chain()[2]);
        assertThat(replayed()).isEqualTo(cache.blocks()).isEqualTo(keys(p.chain()[0], p.chain()[1]));
    }

    @Test
    void randomConcurrentRequests_replayedEventsAlwaysEqualTheCache() {
        java.util.Random random = new java.util.Random(7);
        PrefixCache cache = new PrefixCache(12, sink);
        List<PrefixCache.Hold> running = new ArrayList<>();
        List<PrefixCache.Hold> prefilled = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            int op = random.nextInt(3);
            if (op == 0 || running.isEmpty() && prefilled.isEmpty()) {
                int[] ids = new int[BS * (1 + random.nextInt(8))];
                int family = random.nextInt(4);
                for (int t = 0; t < ids.length; t++) {
                    ids[t] = t < 6 ? family * 1000 + t : random.nextInt(3) + t * 10; // shared heads, few variants
                }
                running.add(cache.acquire(PromptBlocks.ofTokens("m", ids, BS)));
            } else if (op == 1 && !running.isEmpty()) {
                PrefixCache.Hold hold = running.remove(random.nextInt(running.size()));
                cache.store(hold);
                prefilled.add(hold);
            } else {
                List<PrefixCache.Hold> from = prefilled.isEmpty() || !running.isEmpty() && random.nextInt(5) == 0
                        ? running : prefilled; // now and then one cancelled before its prefill ended
                cache.release(from.remove(random.nextInt(from.size())));
            }
            assertThat(replayed()).isEqualTo(cache.blocks());
        }
    }

    @Test
    void charBlocks_publishNothing() {
        PrefixCache cache = new PrefixCache(10, sink);

        run(cache, PromptBlocks.of("m", "x".repeat(100), 10));

        assertThat(batches).isEmpty();
        assertThat(cache.snapshot().blocksCached()).isEqualTo(10);
    }
}
