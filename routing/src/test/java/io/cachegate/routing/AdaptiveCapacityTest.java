package io.cachegate.routing;

import static io.cachegate.routing.Replicas.A;
import static io.cachegate.routing.Replicas.set;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The adaptive request limit of a replica, driven through {@link ReplicaSet} as the gateway drives it, against a
 * simulated model server on the fake clock: the set is kept full (endless demand), each answer reports its time to
 * first token when it comes, and its lease is released when the answer ends.
 */
class AdaptiveCapacityTest {

    private static final long MS = 1_000_000;
    private static final int UNBOUNDED = Integer.MAX_VALUE;
    private static final Duration FIRST_TOKEN = Duration.ofMillis(100);
    private static final Duration ANSWER = Duration.ofMillis(250);

    private final FakeTicker ticker = new FakeTicker();
    private final SplittableRandom random = new SplittableRandom(7);
    /** Each first token comes up to this much later than 100 ms, at random: scheduling noise, not queueing. */
    private int jitterMs;
    /** The server's unqueued time to first token and answer (100 and 250 ms unless a test says otherwise). */
    private long firstTokenNanos = FIRST_TOKEN.toNanos();
    private long answerNanos = ANSWER.toNanos();
    /** Noise in microseconds, for a server that answers in less than a millisecond. */
    private int jitterMicros;

    private ReplicaSet adaptive(int ceiling) {
        return set(ReplicaSetSettings.defaults().withAdaptiveCapacity(ceiling, ReplicaSetSettings.UNLIMITED_TOKENS),
                ticker, A);
    }

    private static int limit(ReplicaSet set) {
        return set.status().get(0).requestLimit();
    }

    /**
     * Endless demand for {@code seconds} against a model server running {@code slots} sequences at once and
     * queueing the rest (first in, first out): every answer's first token comes 100 ms after its sequence starts
     * and its last 250 ms after, and whenever the set has room another request is sent. Returns the most
     * requests the server held at once in the last second. Everything still in flight at the end is released.
     */
    private int saturate(ReplicaSet set, int slots, int seconds) {
        record Event(long at, boolean done, long sentAt, ReplicaLease lease) {
        }
        PriorityQueue<Event> events = new PriorityQueue<>(Comparator.comparingLong(Event::at));
        ArrayDeque<long[]> waiting = new ArrayDeque<>();
        List<ReplicaLease> waitingLeases = new ArrayList<>();
        int[] busy = {0};
        long end = ticker.nanos() + seconds * 1000 * MS;
        int most = 0;
        while (true) {
            long now = ticker.nanos();
            for (var lease = set.tryAcquire(RoutingRequest.of(1)); lease.isPresent();
                    lease = set.tryAcquire(RoutingRequest.of(1))) {
                if (busy[0] < slots) {
                    busy[0]++;
                    events.add(new Event(now + firstToken(), false, now, lease.get()));
                    events.add(new Event(now + answerNanos, true, now, lease.get()));
                } else {
                    waiting.add(new long[] {now});
                    waitingLeases.add(lease.get());
                }
            }
            if (end - now < 1000 * MS) {
                most = Math.max(most, busy[0] + waiting.size());
            }
            Event e = events.poll();
            if (e == null || e.at() > end) {
                // Demand stops: what is still in flight or queued ends without reporting.
                events.stream().filter(Event::done).forEach(x -> x.lease().release());
                if (e != null && e.done()) {
                    e.lease().release();
                }
                waitingLeases.forEach(ReplicaLease::release);
                return most;
            }
            ticker.advanceNanos(e.at() - now);
            if (!e.done()) {
                set.recordSuccess(A, e.at() - e.sentAt());
                continue;
            }
            e.lease().release();
            busy[0]--;
            if (!waiting.isEmpty()) {
                long sentAt = waiting.poll()[0];
                ReplicaLease next = waitingLeases.remove(0);
                busy[0]++;
                events.add(new Event(e.at() + firstToken(), false, sentAt, next));
                events.add(new Event(e.at() + answerNanos, true, sentAt, next));
            }
        }
    }

    /** A server whose first token comes 0.2 ms after a sequence starts, up to 0.8 ms late, its last {@code answer} after. */
    private void fastServer(long answer) {
        firstTokenNanos = 200_000;
        answerNanos = answer;
        jitterMicros = 800;
    }

    private long firstToken() {
        return firstTokenNanos + random.nextInt(jitterMs + 1) * MS + random.nextInt(jitterMicros + 1) * 1_000L;
    }

    @Test
    void recordSuccess_flatLatencyUnderLoad_limitGrows() {
        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        assertThat(limit(set)).isEqualTo(AdaptiveCapacity.INITIAL_LIMIT);

        int most = saturate(set, UNBOUNDED, 40);

        // No queueing seen (every first token in 100 ms): each answer adds 1/(2 x limit), and a full replica
        // answers 4 x limit a second: +2/s, 8 + 80 after 40 s; the replica is given that many.
        assertThat(limit(set)).isGreaterThan(8 * AdaptiveCapacity.INITIAL_LIMIT);
        assertThat(most).isEqualTo(limit(set));
        assertThat(set.requestCapacity()).isEqualTo(limit(set));
    }

    @Test
    void recordSuccess_latencyRisesUnderLoad_limitShrinksToWhatTheServerRuns() {
        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        saturate(set, UNBOUNDED, 40);
        int grown = limit(set);

        int most = saturate(set, 8, 60);

        // The server runs 8 and queues the rest a whole answer (first token at 350 ms instead of 100). A queued
        // answer's queue estimate, L x (1 - 100 / 350), is above beta (4 log10 L, at least 4) and takes log10 L
        // (at least 1) off; an unqueued one adds 1/(2L). From ~70 the limit comes down to 8 and stays near it.
        assertThat(grown).isGreaterThan(64);
        assertThat(limit(set)).isBetween(7, 9);
        assertThat(most).isBetween(8, 9);
    }

    @Test
    void recordSuccess_latencyNoiseWithoutQueueing_limitStillGrows() {
        jitterMs = 30; // first tokens in 100..130 ms whatever the load

        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        saturate(set, UNBOUNDED, 30);

        // At 8 most answers read as 1 or 2 queued (8 x (1 - 100 / 115) = 1.04, rounded up): below alpha (2) or at
        // it, so noise alone does not shrink the limit, and it grows. The allowance is in requests, so it stops
        // where noise reads as alpha queued: about 20 here (20 x (1 - 100 / 115) = 2.6).
        assertThat(limit(set)).isGreaterThan(2 * AdaptiveCapacity.INITIAL_LIMIT);
    }

    @Test
    void recordSuccess_fastServerWithSubMillisecondNoise_limitStillGrows() {
        // A server answering in 0.2 ms, each first token up to 0.8 ms late (the gateway's own loop delays): the
        // noise is four times the latency, which without the 1 ms floor read as most of the limit queued (8 x (1 -
        // 0.2 / 0.6) = 5.3, above beta) and took the limit down to 1.
        fastServer(1_200_000);

        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        saturate(set, UNBOUNDED, 5);

        assertThat(limit(set)).isGreaterThan(4 * AdaptiveCapacity.INITIAL_LIMIT);
    }

    @Test
    void recordSuccess_fastServerThatQueues_limitStillShrinksToWhatItRuns() {
        // The same server running 8 at once: a queued request waits a whole answer (several ms), past the floor.
        fastServer(5_000_000);
        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        saturate(set, UNBOUNDED, 5);

        int most = saturate(set, 8, 20);

        assertThat(limit(set)).isBetween(7, 11);
        assertThat(most).isBetween(8, 11);
    }

    @Test
    void recordSuccess_latencyRisesUnderLoadWithNoise_limitStaysNearWhatTheServerRuns() {
        jitterMs = 20;
        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);

        int most = saturate(set, 8, 60);

        assertThat(limit(set)).isBetween(7, 11);
        assertThat(most).isBetween(8, 11);
    }

    @Test
    void recordSuccess_replicaReportsWaiting_limitShrinksEvenAtFlatLatency() {
        ReplicaSet set = adaptive(ReplicaSetSettings.ADAPTIVE_CEILING);
        saturate(set, UNBOUNDED, 30);
        int grown = limit(set);
        List<ReplicaLease> full = new ArrayList<>();
        for (int i = 0; i < grown; i++) {
            full.add(set.tryAcquire(RoutingRequest.of(1)).orElseThrow());
        }

        set.recordExternalLoad(A, 3, 0.5); // vLLM's num_requests_waiting is 3: too many, whatever the latency
        set.recordSuccess(A, 100 * MS);
        int after = limit(set);
        set.recordSuccess(A, 100 * MS); // the same report is not taken twice: an unqueued answer adds 1/limit

        assertThat(after).isLessThan(grown);
        assertThat(limit(set)).isBetween(after, after + 1);
        full.forEach(ReplicaLease::release);
    }

    @Test
    void recordSuccess_adaptive_neverAboveTheCeiling() {
        ReplicaSet set = adaptive(12);

        int most = saturate(set, UNBOUNDED, 5);

        assertThat(limit(set)).isEqualTo(12);
        assertThat(most).isEqualTo(12);
    }

    @Test
    void recordSuccess_explicitMaxConcurrency_neverAdaptedNorExceeded() {
        ReplicaSet set = set(ReplicaSetSettings.defaults().withCapacity(4, ReplicaSetSettings.UNLIMITED_TOKENS),
                ticker, A);

        int flat = saturate(set, UNBOUNDED, 5);
        assertThat(limit(set)).isEqualTo(4);
        assertThat(set.requestCapacity()).isEqualTo(4);
        assertThat(flat).isEqualTo(4);

        int queued = saturate(set, 2, 5); // the server runs 2: first tokens come late, the limit stays 4
        assertThat(limit(set)).isEqualTo(4);
        assertThat(queued).isEqualTo(4);
    }
}
