package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link KvIndexes}' tokenizing threads: bounded, and a full queue answers at once rather than wait. */
class KvIndexesTest {

    private static final Policy KV_AWARE = Exchanges.policy("""
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "m@1", balance: kv_aware,
                 kv_events: ["tcp://127.0.0.1:1"], tokenizer: bundled}
            """);

    @Test
    void tokenize_queueFull_emptyAtOnceThenTakesWorkAgain() throws Exception {
        try (KvIndexes kv = new KvIndexes(KV_AWARE.backends(), Optional.empty(), new SimpleMeterRegistry())) {
            CountDownLatch release = new CountDownLatch(1);
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
            List<CompletableFuture<int[]>> taken = new ArrayList<>();
            for (int i = 0; i < threads + KvIndexes.TOKENIZE_QUEUE; i++) {
                int n = i;
                taken.add(kv.tokenize(() -> {
                    awaitQuietly(release);
                    return new int[] {n};
                }).orElseThrow(() -> new AssertionError("refused below the bound")));
            }
            // Every thread busy and the queue full: refused, so the request routes by prefix affinity now.
            assertThat(kv.tokenize(() -> new int[0])).isEmpty();
            release.countDown();
            CompletableFuture.allOf(taken.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(taken.get(taken.size() - 1).get()).containsExactly(taken.size() - 1);
            assertThat(kv.tokenize(() -> new int[] {42}).orElseThrow().get(10, TimeUnit.SECONDS)).containsExactly(42);
        }
    }

    @Test
    void tokenize_withoutKvAwareBackends_empty() {
        try (KvIndexes kv = new KvIndexes(Exchanges.policy("""
                backends:
                  - {name: main, urls: ["http://replica-a:8000"], model_version: "m@1"}
                """).backends(), Optional.empty(), new SimpleMeterRegistry())) {
            assertThat(kv.tokenize(() -> new int[0])).isEmpty();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
