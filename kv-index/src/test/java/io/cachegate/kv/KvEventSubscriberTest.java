package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.BooleanSupplier;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The subscriber against a vLLM-style publisher on loopback sockets: bootstrap, live, gaps, restarts. */
class KvEventSubscriberTest {

    private static void within20s(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s");
            }
            Thread.sleep(10);
        }
    }

    /** Blocks {@code first..first+n-1} of one chain: hash i holds tokens {2i, 2i+1}; block size 2. */
    private static byte[] chain(long first, int n) {
        long[] hashes = new long[n];
        int[] tokens = new int[2 * n];
        for (int i = 0; i < n; i++) {
            long h = first + i;
            hashes[i] = h;
            tokens[2 * i] = (int) (2 * h);
            tokens[2 * i + 1] = (int) (2 * h + 1);
        }
        return new KvTestPublisher.Events().stored(hashes, first == 0 ? null : first - 1, tokens, 2, "GPU").pack();
    }

    private static int[] tokensOf(int blocks) {
        int[] t = new int[2 * blocks];
        for (int i = 0; i < t.length; i++) {
            t[i] = i;
        }
        return t;
    }

    @Test
    void aReplicaThatHasStoredNothingYetIsKnownOnceItsReplayAnswers() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()), new ReplicaBlocks(10));
            KvFeed silent = new KvFeed("b", 1, "tcp://127.0.0.1:1", Optional.of("tcp://127.0.0.1:2"),
                    new ReplicaBlocks(10));
            BackendKvIndex index = new BackendKvIndex(List.of(feed, silent), 0.5);
            assertThat(index.live()).isFalse();
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed, silent), (f, nanos) -> { },
                    Duration.ofMillis(200), KvEventSubscriber.SnapshotSource.NONE).start()) {
                within20s(index::live);
                assertThat(subscriber.feeds()).hasSize(2);
                assertThat(feed.replayed()).as("an empty replay: it holds nothing, and that is known").isTrue();
                assertThat(feed.lastSeq()).isEqualTo(-1);
                assertThat(silent.replayed()).as("no socket answers there: nothing known").isFalse();
            }
        }
    }

    @Test
    void bootstrapsFromTheReplayThenFollowsLiveAndFillsAGap() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            publisher.send(chain(0, 3)); // before anyone listens: only the replay has it
            ReplicaBlocks blocks = new ReplicaBlocks(1000);
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()), blocks);
            AtomicLong lags = new AtomicLong();
            BackendKvIndex index = new BackendKvIndex(List.of(feed), 0.5);
            assertThat(index.live()).isFalse();
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed),
                    (f, nanos) -> lags.incrementAndGet(), Duration.ofMillis(200), KvEventSubscriber.SnapshotSource.NONE)
                    .start()) {
                within20s(() -> blocks.size() == 3);
                assertThat(index.live()).isTrue();
                // Live: ZeroMQ's subscription takes a moment to reach the publisher; the replay covers what it
                // misses meanwhile, once the next live message shows the gap.
                for (int i = 3; i < 6; i++) {
                    publisher.send(chain(i, 1));
                    Thread.sleep(20);
                }
                within20s(() -> blocks.size() == 6);
                publisher.skip(chain(6, 1)); // lost
                publisher.send(chain(7, 1));
                within20s(() -> blocks.size() == 8);
                assertThat(feed.gaps()).isGreaterThanOrEqualTo(1);
                assertThat(feed.gapsUnfilled()).isZero();
                assertThat(feed.lastSeq()).isEqualTo(5); // 0: three blocks, 1-3: one each, 4: lost, 5
                assertThat(lags.get()).isPositive();
                BackendKvIndex.Match match = index.match(tokensOf(10));
                assertThat(match.promptBlocks()).isEqualTo(10);
                assertThat(match.heldBlocks()).containsExactly(8);
                assertThat(match.heldTokens()).containsExactly(16);
                assertThat(subscriber.feeds()).containsExactly(feed);
            }
        }
    }

    @Test
    void aGapInABurstIsRefilledAndItsLiveCopiesAreNotTakenForARestart() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            ReplicaBlocks blocks = new ReplicaBlocks(1000);
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()), blocks);
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed), KvEventSubscriber.Listener.NONE)
                    .start()) {
                within20s(() -> {
                    publisher.send(new KvTestPublisher.Events().pack());
                    return feed.caughtUp;
                });
                publisher.send(chain(0, 1));
                publisher.skip(chain(1, 1)); // lost: the next batch opens a gap, its replay gives all sent so far
                for (int h = 2; h < 200; h++) {
                    publisher.send(chain(h, 1)); // sent faster than the replay: live copies queue behind it
                }
                within20s(() -> blocks.size() == 200);
                assertThat(feed.restarts()).isZero();
                assertThat(feed.gaps()).isGreaterThanOrEqualTo(1);
                assertThat(subscriber.feeds()).hasSize(1);
            }
        }
    }

    @Test
    void aRestartedPublisherMeansItsBlocksAreGone() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            ReplicaBlocks blocks = new ReplicaBlocks(1000);
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()), blocks);
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed), KvEventSubscriber.Listener.NONE)
                    .start()) {
                within20s(() -> {
                    publisher.send(new KvTestPublisher.Events().pack()); // empty batches until the subscription is up
                    return feed.lastSeq() >= 0 && feed.gapsUnfilled() == 0 && feed.caughtUp;
                });
                publisher.send(chain(0, 4));
                within20s(() -> blocks.size() == 4);
                publisher.restart();
                publisher.send(chain(100, 1)); // seq 0 again, a block whose parent is not known: an orphan
                publisher.send(chain(0, 1));
                within20s(() -> feed.restarts() == 1 && blocks.size() == 1);
                assertThat(subscriber.feeds()).hasSize(1);
            }
        }
    }

    @Test
    void withoutAReplaySocketAGapIsCountedAsUnfilled() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            ReplicaBlocks blocks = new ReplicaBlocks(1000);
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.empty(), blocks);
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed), KvEventSubscriber.Listener.NONE)
                    .start()) {
                within20s(() -> {
                    publisher.send(chain(0, 1));
                    return blocks.size() == 1;
                });
                long before = feed.gapsUnfilled();
                publisher.skip(chain(1, 1));
                publisher.send(chain(2, 1)); // its parent was lost with the skipped batch
                within20s(() -> blocks.orphans() == 1);
                assertThat(feed.gapsUnfilled()).isEqualTo(before + 1);
                assertThat(subscriber.feeds()).hasSize(1);
            }
        }
    }
}
