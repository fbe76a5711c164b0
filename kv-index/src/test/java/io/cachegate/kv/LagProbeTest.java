package io.cachegate.kv;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class LagProbeTest {
    @Test
    void lag() throws Exception {
        try (KvTestPublisher publisher = new KvTestPublisher(10_000)) {
            ConcurrentLinkedQueue<Long> lags = new ConcurrentLinkedQueue<>();
            KvFeed feed = new KvFeed("b", 0, publisher.publish(), Optional.of(publisher.replay()), new ReplicaBlocks(1_000_000));
            try (KvEventSubscriber unused = new KvEventSubscriber(List.of(feed), (f, n) -> lags.add(n), Duration.ofSeconds(2),
                    KvEventSubscriber.SnapshotSource.NONE).start()) {
                Thread.sleep(500);
                System.out.println("feeds " + unused.feeds().size());
                long start = System.nanoTime();
                int n = 0;
                int events = Integer.getInteger("events", 10);
                long period = 1_000_000_000L * events / Integer.getInteger("rate", 10_000);
                while (System.nanoTime() - start < 5_000_000_000L) {
                    long due = start + n * period;
                    long wait = due - System.nanoTime();
                    if (wait > 0) { java.util.concurrent.locks.LockSupport.parkNanos(wait); }
                    KvTestPublisher.Events batch = new KvTestPublisher.Events();
                    for (int e = 0; e < events; e++) {
                        int[] tokens = new int[16];
                        Arrays.fill(tokens, n * events + e);
                        batch.stored(new long[] {n * events + e}, null, tokens, 16, "GPU");
                    }
                    publisher.send(batch.pack());
                    n++;
                }
                Thread.sleep(500);
                long[] all = lags.stream().mapToLong(Long::longValue).toArray();
                long[] sorted = Arrays.stream(all).skip(all.length / 5).sorted().toArray(); // past the first second
                System.out.printf("LAG sent=%d got=%d p50=%.2fms p99=%.2fms p999=%.2fms max=%.2fms gaps=%d blocks=%d%n", n, sorted.length,
                        sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6, sorted[(int) (sorted.length * 0.999)] / 1e6, sorted[sorted.length - 1] / 1e6,
                        feed.gaps(), feed.blocks().size());
            }
        }
    }
}
