package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.B;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Balance;
import io.cachegate.config.PrefixAffinitySettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A smoke test, not a proof: threads racing acquire and release must never see a replica above capacity. */
class ReplicaSetConcurrencyTest {

    private static final int THREADS = 6;
    private static final int ROUNDS = 5_000;
    private static final int MAX_REQUESTS = 2;
    private static final long MAX_TOKENS = 600;

    @ParameterizedTest
    @EnumSource(Balance.class)
    void tryAcquire_concurrently_neverExceedsCapacity(Balance balance) throws Exception {
        ReplicaSet set = ReplicaSet.builder("main", List.of(A, B))
                .settings(ReplicaSetSettings.defaults().withBalance(balance).withCapacity(MAX_REQUESTS, MAX_TOKENS)
                        .withAffinity(new PrefixAffinitySettings(16, 256, 1.5, 64, 200)))
                .random(new SplittableRandom(1))
                .build();
        Map<URI, AtomicInteger> requests = new ConcurrentHashMap<>();
        Map<URI, AtomicLong> tokens = new ConcurrentHashMap<>();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                SplittableRandom random = new SplittableRandom(t);
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < ROUNDS; i++) {
                        long cost = 1 + random.nextInt(400);
                        String prompt = "system prompt number " + random.nextInt(4) + " ".repeat(64) + i;
                        Optional<ReplicaLease> lease = set.tryAcquire(RoutingRequest.withBlocks(cost, set.prefixHashes(prompt)));
                        if (lease.isEmpty()) {
                            continue;
                        }
                        acquired.incrementAndGet();
                        URI uri = lease.get().replica();
                        AtomicInteger r = requests.computeIfAbsent(uri, u -> new AtomicInteger());
                        AtomicLong k = tokens.computeIfAbsent(uri, u -> new AtomicLong());
                        if (r.incrementAndGet() > MAX_REQUESTS | k.addAndGet(cost) > MAX_TOKENS) {
                            violations.incrementAndGet();
                        }
                        Thread.yield(); // hold the lease a moment so other threads contend for it
                        if (random.nextInt(50) == 0) {
                            set.recordFailure(uri);
                        } else {
                            set.recordSuccess(uri);
                        }
                        r.decrementAndGet();
                        k.addAndGet(-cost);
                        lease.get().release();
                        lease.get().release();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).hasValue(0);
        assertThat(acquired.get()).isPositive();
        for (ReplicaStatus s : set.status()) {
            assertThat(s.inflightRequests()).isZero();
            assertThat(s.inflightTokens()).isZero();
        }
    }
}
