package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** A gateway starting after the replay buffer turned over takes a sibling's index, then follows the replay. */
class KvSnapshotTest {

    private static void within20s(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s");
            }
            Thread.sleep(10);
        }
    }

    private static byte[] block(long hash) {
        return new KvTestPublisher.Events().stored(new long[] {hash}, hash == 0 ? null : hash - 1,
                new int[] {(int) hash, (int) hash + 1}, 2, "GPU").pack();
    }

    @Test
    void aLateGatewayBootstrapsFromASiblingWhenTheReplayNoLongerHoldsTheHistory() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            KvFeed early = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()),
                    new ReplicaBlocks(1000));
            try (KvEventSubscriber first = new KvEventSubscriber(List.of(early), KvEventSubscriber.Listener.NONE,
                    Duration.ofMillis(200), KvEventSubscriber.SnapshotSource.NONE).start()) {
                within20s(() -> {
                    publisher.send(block(0)); // until the early gateway hears it live, not only from the replay
                    return early.blocks().size() == 1 && early.caughtUp;
                });
                for (int h = 1; h < 6; h++) {
                    publisher.send(block(h));
                }
                within20s(() -> early.blocks().size() == 6);
                publisher.keep(2); // the replay turns over: the late gateways can get only the last 2 batches

                KvFeed alone = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()),
                        new ReplicaBlocks(1000));
                KvFeed late = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()),
                        new ReplicaBlocks(1000));
                KvEventSubscriber.SnapshotSource sibling = backend -> Optional.of(KvSnapshot.write(List.of(early)));
                try (KvEventSubscriber withoutSibling = new KvEventSubscriber(List.of(alone),
                        KvEventSubscriber.Listener.NONE, Duration.ofMillis(200),
                        KvEventSubscriber.SnapshotSource.NONE).start();
                     KvEventSubscriber withSibling = new KvEventSubscriber(List.of(late),
                             KvEventSubscriber.Listener.NONE, Duration.ofMillis(200), sibling).start()) {
                    within20s(() -> late.blocks().size() == 6 && late.snapshots() == 1);
                    within20s(() -> alone.gapsUnfilled() >= 1 && alone.lastSeq() >= 0);
                    assertThat(alone.blocks().size()).as("the replay alone: only blocks whose parents it knows")
                            .isLessThan(6);
                    publisher.send(block(6));
                    within20s(() -> late.blocks().size() == 7);
                    long[] keys = BlockKeys.of(new int[] {0, 1, 1, 2, 2, 3}, 2);
                    assertThat(late.blocks().heldTokens(keys, 2, 0.5)).isEqualTo(6);
                    assertThat(withSibling.feeds()).containsExactly(late);
                    assertThat(withoutSibling.feeds()).containsExactly(alone);
                    assertThat(first.feeds()).containsExactly(early);
                }
            }
        }
    }
}
