package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Per-class in-flight caps: {@code max(1, floor(maxInflightShare × capacityRequests))} requests per class. */
class InflightCapTest {

    private static final int CAPACITY = 8;
    private static final ClassSettings INTERACTIVE = ClassSettings.builder("interactive").priority(0)
            .maxQueueTime(Duration.ofSeconds(600)).build();
    private static final ClassSettings BATCH_CAPPED = ClassSettings.builder("batch").priority(2)
            .maxQueueTime(Duration.ofSeconds(600)).maxInflightShare(0.75).build();

    private final FakeTicker ticker = new FakeTicker();
    private final RecordingListener listener = new RecordingListener();
    private final PoolCapacity pool = new PoolCapacity(CAPACITY, 1_000_000);

    private AdmissionController controller(int capacityRequests, ClassSettings... classes) {
        AdmissionSettings.Builder b = AdmissionSettings.builder().capacityRequests(capacityRequests);
        for (ClassSettings c : classes) {
            b.addClass(c);
        }
        return new AdmissionController(b.build(), pool, ticker, listener);
    }

    private AdmissionController controller() {
        return controller(CAPACITY, INTERACTIVE, BATCH_CAPPED);
    }

    private static AdmissionRequest req(String cls, long tokens) {
        return AdmissionRequest.of(cls, tokens);
    }

    private static Admission.Admitted admitted(Admission a) {
        assertThat(a).isInstanceOf(Admission.Admitted.class);
        return (Admission.Admitted) a;
    }

    private static Ticket queued(Admission a) {
        assertThat(a).isInstanceOf(Admission.Queued.class);
        return ((Admission.Queued) a).ticket();
    }

    private static Admission outcome(Ticket t) {
        return t.outcome().toCompletableFuture().getNow(null);
    }

    /** Offers {@code n} batch requests of one token, returning the leases of those admitted at once. */
    private static List<AdmissionLease> offerBatch(AdmissionController c, int n, List<Ticket> queuedOut) {
        List<AdmissionLease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Admission a = c.offer(req("batch", 1));
            if (a instanceof Admission.Admitted admitted) {
                leases.add(admitted.lease());
            } else {
                queuedOut.add(queued(a));
            }
        }
        return leases;
    }

    private static AdmissionLease nextAdmitted(List<Ticket> tickets) {
        for (Ticket t : tickets) {
            if (outcome(t) instanceof Admission.Admitted a && !a.lease().isReleased()) {
                return a.lease();
            }
        }
        return null;
    }

    @Test
    void offer_liveCapacity_capIsAShareOfTheCapacityNow() {
        int[] capacity = {4};
        AdmissionController c = new AdmissionController(AdmissionSettings.builder().capacityRequests(4)
                .addClass(INTERACTIVE).addClass(BATCH_CAPPED).build(), pool, ticker, listener, () -> capacity[0]);
        List<Ticket> waiting = new ArrayList<>();

        // 0.75 x 4 = 3 in flight, the 4th waits; the pool itself has 8 slots.
        List<AdmissionLease> first = offerBatch(c, 4, waiting);
        assertThat(first).hasSize(3);
        assertThat(waiting).hasSize(1);

        // The adaptive limits grow to 8 in all: 0.75 x 8 = 6, so the waiting one goes at the next dispatch.
        capacity[0] = 8;
        c.tick();
        assertThat(nextAdmitted(waiting)).isNotNull();
        assertThat(offerBatch(c, 3, waiting)).hasSize(2);
    }

    @Test
    void inflightCap_isShareOfCapacityRoundedDownAtLeastOne() {
        assertThat(ClassQueue.inflightCap(0.75, 8)).isEqualTo(6);
        assertThat(ClassQueue.inflightCap(0.7, 8)).isEqualTo(5);
        assertThat(ClassQueue.inflightCap(0.29, 100)).isEqualTo(29);
        assertThat(ClassQueue.inflightCap(0.01, 8)).isEqualTo(1);
        assertThat(ClassQueue.inflightCap(1.0, 8)).isEqualTo(ClassQueue.NO_CAP);
        assertThat(ClassQueue.inflightCap(0.5, AdmissionSettings.UNKNOWN_CAPACITY)).isEqualTo(ClassQueue.NO_CAP);
    }

    @Test
    void offer_batchCappedAtThreeQuarters_neverHoldsMoreThanSix() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        List<AdmissionLease> running = new ArrayList<>(offerBatch(c, 20, waiting));
        assertThat(running).hasSize(6);
        assertThat(waiting).hasSize(14);
        assertThat(pool.inflightRequests()).isEqualTo(6);

        // Release one at a time, then in pairs, ticking in between: batch refills to six and never beyond.
        while (!running.isEmpty()) {
            int n = Math.min(running.size(), running.size() % 2 == 0 ? 2 : 1);
            for (int i = 0; i < n; i++) {
                running.remove(0).release();
            }
            c.tick();
            assertThat(pool.inflightRequests()).isLessThanOrEqualTo(6);
            assertThat(c.snapshot().classStats("batch").inflight()).isEqualTo(pool.inflightRequests());
            for (AdmissionLease lease = nextAdmitted(waiting); lease != null; lease = nextAdmitted(waiting)) {
                running.add(lease);
                waiting.removeIf(t -> outcome(t) != null);
            }
            assertThat(running).hasSizeLessThanOrEqualTo(6);
        }
        assertThat(waiting).isEmpty();
        assertThat(c.snapshot().dispatched()).isEqualTo(20);
    }

    @Test
    void offer_interactiveWhileBatchHoldsItsCap_admittedAtOnce() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        offerBatch(c, 10, waiting);
        assertThat(waiting).hasSize(4);

        Admission.Admitted first = admitted(c.offer(req("interactive", 1)));
        assertThat(first.waited()).isZero();
        admitted(c.offer(req("interactive", 1)));
        queued(c.offer(req("interactive", 1))); // the pool's eight are taken now
        assertThat(pool.inflightRequests()).isEqualTo(CAPACITY);
    }

    @Test
    void offer_cappedClassWithRoomInThePool_isQueuedNotAdmitted() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        offerBatch(c, 6, waiting);
        Ticket seventh = queued(c.offer(req("batch", 1)));
        c.tick();
        assertThat(outcome(seventh)).isNull();
        assertThat(pool.inflightRequests()).isEqualTo(6);
    }

    @Test
    void release_cappedClass_dispatchesQueuedBatchOnlyUpToTheCap() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        List<AdmissionLease> batch = offerBatch(c, 11, waiting);
        AdmissionLease interactive = admitted(c.offer(req("interactive", 1))).lease();
        assertThat(pool.inflightRequests()).isEqualTo(7);

        // An interactive release frees a pool slot, not a batch one.
        interactive.release();
        assertThat(waiting).allMatch(t -> outcome(t) == null);
        assertThat(pool.inflightRequests()).isEqualTo(6);

        batch.get(0).release();
        assertThat(waiting.stream().filter(t -> outcome(t) != null)).hasSize(1);
        batch.get(1).release();
        batch.get(2).release();
        assertThat(waiting.stream().filter(t -> outcome(t) != null)).hasSize(3);
        assertThat(pool.inflightRequests()).isEqualTo(6);
        assertThat(c.snapshot().classStats("batch").queued()).isEqualTo(2);
    }

    @Test
    void dispatch_cappedHead_lowerClassUnderItsOwnCapStillDispatched() {
        ClassSettings standard = ClassSettings.builder("standard").priority(1).maxQueueTime(Duration.ofSeconds(600))
                .maxInflightShare(0.25).build();
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(600))
                .build();
        AdmissionController c = controller(CAPACITY, standard, batch);
        admitted(c.offer(req("standard", 1)));
        admitted(c.offer(req("standard", 1)));
        Ticket capped = queued(c.offer(req("standard", 1)));
        admitted(c.offer(req("batch", 1)));
        assertThat(outcome(capped)).isNull();
        assertThat(c.snapshot().classStats("standard").inflight()).isEqualTo(2);
        assertThat(c.snapshot().classStats("batch").inflight()).isEqualTo(1);
    }

    @Test
    void tick_cappedClassQueuedPastMaxQueueTime_expires() {
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(5))
                .maxInflightShare(0.75).build();
        AdmissionController c = controller(CAPACITY, INTERACTIVE, batch);
        List<Ticket> waiting = new ArrayList<>();
        offerBatch(c, 7, waiting);
        ticker.advance(Duration.ofSeconds(6));
        c.tick();
        Admission.Rejected r = (Admission.Rejected) outcome(waiting.get(0));
        assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_TIMEOUT);
        assertThat(listener.events).endsWith("rejected batch QUEUE_TIMEOUT");
    }

    @Test
    void share_cappedClass_gainsNoCreditWhileCapped() {
        // Pool and capacity of 2; batch may hold 1 and is owed every 2nd dispatch while it waits.
        PoolCapacity small = new PoolCapacity(2, 1_000_000);
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(600))
                .share(0.5).maxInflightShare(0.5).build();
        AdmissionController c = new AdmissionController(AdmissionSettings.builder().capacityRequests(2)
                .addClass(INTERACTIVE).addClass(batch).build(), small, ticker, listener);
        AdmissionLease batchLease = admitted(c.offer(req("batch", 1))).lease();
        AdmissionLease lease = admitted(c.offer(req("interactive", 1))).lease();
        List<Ticket> tickets = new ArrayList<>();
        tickets.add(queued(c.offer(req("batch", 1))));
        for (int i = 0; i < 20; i++) {
            tickets.add(queued(c.offer(req("interactive", 1))));
        }
        // Ten interactive dispatches while batch is capped: it would have banked five dispatches of credit.
        for (int i = 0; i < 10; i++) {
            lease.release();
            lease = nextAdmitted(tickets);
            assertThat(lease.request().trafficClass()).isEqualTo("interactive");
        }
        batchLease.release();
        List<String> order = new ArrayList<>();
        AdmissionLease next = nextAdmitted(tickets);
        order.add(next.request().trafficClass());
        lease.release();
        for (int i = 0; i < 3; i++) {
            next.release();
            next = nextAdmitted(tickets);
            order.add(next.request().trafficClass());
        }
        // No burst: interactive first, then batch on its share.
        assertThat(order).containsExactly("interactive", "interactive", "batch", "interactive");
    }

    @Test
    void offer_cappedClass_waitEstimateUsesTheRateItsCapAllows() {
        // Prior drain rate 1000 tokens/s; batch may hold 4 of 8, so it is estimated at 500 tokens/s.
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(10))
                .maxInflightShare(0.5).build();
        AdmissionController c = controller(CAPACITY, INTERACTIVE, batch);
        List<Ticket> waiting = new ArrayList<>();
        offerBatch(c, 4, waiting);
        queued(c.offer(req("batch", 4000)));
        queued(c.offer(req("batch", 1000))); // 8 s ahead at 500 tokens/s; it would be 4 s at the whole rate
        queued(c.offer(req("batch", 1))); // 10.0 s ahead: allowed
        Admission a = c.offer(req("batch", 1)); // 10.002 s
        assertThat(a).isInstanceOf(Admission.Rejected.class);
        Admission.Rejected r = (Admission.Rejected) a;
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void drainRate_cappedBacklogWithRoomInThePool_isNotMeasuredAsSaturation() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        List<AdmissionLease> running = offerBatch(c, 10, waiting);
        ticker.advance(Duration.ofSeconds(3));
        running.get(0).release();
        assertThat(c.snapshot().drainRateMeasured()).isFalse();
        assertThat(c.drainRate()).isEqualTo(1000.0);
    }

    @Test
    void maxInflightShareOne_holdsTheWholePoolWhateverTheCapacity() {
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(600))
                .build();
        AdmissionController c = controller(4, INTERACTIVE, batch); // capacity says 4, the gate allows 8
        offerBatch(c, 8, new ArrayList<>());
        assertThat(c.snapshot().classStats("batch").inflight()).isEqualTo(8);
    }

    @Test
    void capacityUnknown_capsNeverBind() {
        AdmissionController c = new AdmissionController(AdmissionSettings.builder().addClass(INTERACTIVE)
                .addClass(BATCH_CAPPED).build(), pool, ticker, listener);
        List<Ticket> waiting = new ArrayList<>();
        offerBatch(c, 9, waiting);
        assertThat(pool.inflightRequests()).isEqualTo(CAPACITY);
        assertThat(waiting).hasSize(1);
    }

    @Test
    void snapshot_countsInflightPerClass() {
        AdmissionController c = controller();
        List<Ticket> waiting = new ArrayList<>();
        List<AdmissionLease> batch = offerBatch(c, 7, waiting);
        AdmissionLease interactive = admitted(c.offer(req("interactive", 1))).lease();
        AdmissionSnapshot s = c.snapshot();
        assertThat(s.classStats("batch").inflight()).isEqualTo(6);
        assertThat(s.classStats("batch").queued()).isEqualTo(1);
        assertThat(s.classStats("interactive").inflight()).isEqualTo(1);
        assertThat(s.inflightRequests()).isEqualTo(7);

        interactive.release();
        batch.get(0).release(); // the queued one takes its place
        batch.get(1).release();
        s = c.snapshot();
        assertThat(s.classStats("interactive").inflight()).isZero();
        assertThat(s.classStats("batch").inflight()).isEqualTo(5);
        assertThat(s.classStats("batch").queued()).isZero();
    }
}
