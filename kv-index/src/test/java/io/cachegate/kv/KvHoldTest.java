package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class KvHoldTest {

    private static final int BLOCK = 2;
    /** A system prompt of 20 blocks, then each request's own 2 blocks. */
    private static final int[] SYSTEM = IntStream.range(1000, 1040).toArray();

    private static int[] prompt(int question) {
        return IntStream.concat(IntStream.of(SYSTEM), IntStream.of(question, question + 1, question + 2, question + 3))
                .toArray();
    }

    private static BackendKvIndex index(int replicas) {
        List<KvFeed> feeds = IntStream.range(0, replicas).mapToObj(i -> new KvFeed("b", i, "tcp://127.0.0.1:1",
                Optional.empty(), new ReplicaBlocks(10_000))).toList();
        BackendKvIndex index = new BackendKvIndex(feeds, 0.5);
        // Some unrelated block, so the index knows the block size
        for (KvFeed f : feeds) {
            f.blocks().apply(new KvEvent.BlockStored(new long[] {7}, false, 0, new int[] {1, 2}, BLOCK,
                    KvEvent.Medium.GPU));
        }
        return index;
    }

    /** Replica {@code replica} stores every full block of {@code tokens}, engine hashes from {@code firstHash}. */
    private static void stored(BackendKvIndex index, int replica, int[] tokens, long firstHash) {
        int blocks = tokens.length / BLOCK;
        index.feeds().get(replica).blocks().apply(new KvEvent.BlockStored(longs(firstHash, blocks), false, 0,
                Arrays.copyOf(tokens, blocks * BLOCK), BLOCK, KvEvent.Medium.GPU));
    }

    private static long[] longs(long first, int n) {
        return LongStream.range(first, first + n).toArray();
    }

    @Test
    void hold_prefixBeingComputedForAnEarlierRequest_waitsUntilTheEventsStoreIt() {
        BackendKvIndex index = index(3);
        int[] first = prompt(1);
        index.routed(1, BlockKeys.of(first, BLOCK)); // the group's first request went to replica 1 and is prefilling
        long now = System.nanoTime();

        Optional<KvHold> hold = index.hold(prompt(5), now);

        assertThat(hold).isPresent();
        assertThat(hold.get().replica()).isEqualTo(1);
        assertThat(hold.get().pendingBlocks()).as("the system prompt's 20 blocks, not the other question's")
                .isEqualTo(20);
        assertThat(hold.get().over(now)).isFalse();
        stored(index, 1, first, 100); // its prefill is over: replica 1's events store the blocks
        assertThat(hold.get().over(now)).isTrue();
        assertThat(index.match(prompt(5)).heldBlocks()).containsExactly(0, 20, 0);
    }

    @Test
    void hold_endsAtItsDeadlineWhenTheBlocksNeverCome() {
        BackendKvIndex index = index(2);
        index.routed(0, BlockKeys.of(prompt(1), BLOCK));
        long now = System.nanoTime();

        KvHold hold = index.hold(prompt(5), now).orElseThrow();

        assertThat(hold.deadline() - now).isBetween(0L, KvHold.MAX_NANOS);
        assertThat(hold.over(hold.deadline() - 1)).isFalse();
        assertThat(hold.over(hold.deadline())).isTrue();
        assertThat(index.hold(prompt(5), now + KvHold.MAX_NANOS + 1)).as("routed too long ago: no hold").isEmpty();
    }

    @Test
    void hold_notWhenAReplicaAlreadyHoldsThePrefixOrTooLittleIsPending() {
        BackendKvIndex index = index(3);
        assertThat(index.hold(prompt(5), System.nanoTime())).as("nothing pending anywhere").isEmpty();

        index.routed(1, BlockKeys.of(prompt(1), BLOCK));
        stored(index, 2, prompt(2), 200); // replica 2's events show the system prompt held
        assertThat(index.hold(prompt(5), System.nanoTime())).as("held by replica 2 already: route there now")
                .isEmpty();

        BackendKvIndex small = index(2);
        int[] shortPrompt = IntStream.range(0, (KvHold.MIN_BLOCKS - 1) * BLOCK).toArray();
        small.routed(0, BlockKeys.of(shortPrompt, BLOCK));
        assertThat(small.hold(shortPrompt, System.nanoTime())).as("fewer than MIN_BLOCKS pending: not worth a wait")
                .isEmpty();
    }

    @Test
    void hold_theRequestsOwnTailBeingComputedDoesNotHoldItsNextTurn() {
        BackendKvIndex index = index(2);
        int[] turn1 = prompt(1);
        stored(index, 0, SYSTEM, 300); // the system prompt is held on replica 0
        index.routed(0, BlockKeys.of(turn1, BLOCK)); // only its question's 2 blocks are pending

        assertThat(index.hold(turn1, System.nanoTime())).isEmpty();
    }
}
