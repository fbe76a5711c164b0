package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairShareTest {

    private static final ClassSettings INTERACTIVE = ClassSettings.builder("interactive").priority(0)
            .maxQueueTime(Duration.ofSeconds(600)).build();

    private final FakeTicker ticker = new FakeTicker();
    /** The tenant of each dispatch, in order. */
    private final List<String> served = new ArrayList<>();
    private final List<Admission.Admitted> running = new ArrayList<>();
    private final AdmissionListener listener = new AdmissionListener() {
        @Override
        public void onDispatched(String trafficClass, String tenant, Duration waited, boolean degraded) {
            served.add(tenant);
        }
    };

    private AdmissionController controller(PoolCapacity pool, boolean fair, ClassSettings cls) {
        return new AdmissionController(AdmissionSettings.builder().addClass(cls).fairShare(fair)
                .initialDrainRate(1_000).build(), pool, ticker, listener);
    }

    private static AdmissionRequest req(String tenant, long tokens) {
        return new AdmissionRequest("interactive", tokens, tenant, null);
    }

    private Admission offer(AdmissionController c, String tenant, long tokens) {
        Admission a = c.offer(req(tenant, tokens));
        if (a instanceof Admission.Admitted admitted) {
            running.add(admitted);
        } else if (a instanceof Admission.Queued queued) {
            queued.ticket().outcome().thenAccept(o -> {
                if (o instanceof Admission.Admitted admitted) {
                    running.add(admitted);
                }
            });
        }
        return a;
    }

    /** Finishes the oldest running request {@code times} times: each frees the pool's one slot for the next. */
    private void finish(int times) {
        for (int i = 0; i < times && !running.isEmpty(); i++) {
            running.remove(0).lease().release();
        }
    }

    private void flood(AdmissionController c, String tenant, int requests, long tokens) {
        for (int i = 0; i < requests; i++) {
            offer(c, tenant, tokens);
        }
    }

    @Test
    void aTenantSendingTenTimesTheOthers_getsItsShare_notTheWholeClass() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), true, INTERACTIVE);
        flood(c, "a", 10, 100);
        flood(c, "b", 1, 100);
        flood(c, "c", 1, 100);
        finish(4);

        assertThat(served).containsExactly("a", "b", "c", "a", "a");
    }

    @Test
    void fairShareOff_isFirstComeFirstServed() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), false, INTERACTIVE);
        flood(c, "a", 10, 100);
        flood(c, "b", 1, 100);
        finish(10);

        assertThat(served).containsExactly("a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "b");
    }

    @Test
    void shares_areOfTokens_notOfRequests() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), true, INTERACTIVE);
        flood(c, "big", 4, 1_000);
        flood(c, "small", 40, 100);
        finish(23);

        // After big's first request (admitted at once), small gets ten of its 100-token requests per 1,000 of big.
        assertThat(served.subList(0, 24)).containsExactly("big",
                "small", "small", "small", "small", "small", "small", "small", "small", "small", "small", "big",
                "small", "small", "small", "small", "small", "small", "small", "small", "small", "small", "big",
                "small");
    }

    @Test
    void weights_divideTheClass() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), true, INTERACTIVE);
        c.tenantWeights(Map.of("gold", 3.0));
        flood(c, "gold", 20, 100);
        flood(c, "free", 20, 100);
        finish(16);

        List<String> window = served.subList(1, 17);
        assertThat(window.stream().filter("gold"::equals).count()).isEqualTo(12); // 3 : 1
        assertThat(window.stream().filter("free"::equals).count()).isEqualTo(4);
    }

    @Test
    void aFullQueue_turnsAwayTheTenantOverItsShare_notTheArrival() {
        ClassSettings small = ClassSettings.builder("interactive").priority(0).maxQueueTime(Duration.ofSeconds(600))
                .maxQueueRequests(4).build();
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), true, small);
        offer(c, "a", 100); // running
        List<Admission> queuedOfA = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            queuedOfA.add(offer(c, "a", 100));
        }

        Admission arrival = offer(c, "b", 100);

        assertThat(arrival).isInstanceOf(Admission.Queued.class);
        Admission newestOfA = ((Admission.Queued) queuedOfA.get(3)).ticket().outcome().toCompletableFuture().getNow(null);
        assertThat(newestOfA).isInstanceOfSatisfying(Admission.Rejected.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_FULL);
            assertThat(r.message()).contains("tenant a holds more than its fair share");
        });
        Admission againA = offer(c, "a", 100);
        assertThat(againA).as("a is over its share: its own arrival is refused")
                .isInstanceOfSatisfying(Admission.Rejected.class, r -> assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_FULL));
        assertThat(c.snapshot().classStats("interactive").queued()).isEqualTo(4);
    }

    @Test
    void theWaitEstimate_isOfTheTenantsPlaceInFairOrder() {
        ClassSettings twoSeconds = ClassSettings.builder("interactive").priority(0).maxQueueTime(Duration.ofSeconds(2))
                .build();
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), true, twoSeconds);
        Admission last;
        int queuedOfA = 0;
        while ((last = offer(c, "a", 300)) instanceof Admission.Queued || last instanceof Admission.Admitted) {
            queuedOfA++;
        }
        assertThat(((Admission.Rejected) last).reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(queuedOfA).as("a's 300-token requests at 1,000 tokens/s within 2 s").isBetween(6, 8);

        assertThat(offer(c, "b", 300)).as("b waits behind one turn of a, not all of a's backlog")
                .isInstanceOf(Admission.Queued.class);
    }
}
