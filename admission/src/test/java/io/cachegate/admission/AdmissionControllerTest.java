package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.OverloadPolicy;
import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionControllerTest {

    private static final ClassSettings INTERACTIVE = ClassSettings.builder("interactive").priority(0)
            .maxQueueTime(Duration.ofSeconds(2)).mayDegrade(true).build();
    private static final ClassSettings STANDARD = ClassSettings.builder("standard").priority(1)
            .maxQueueTime(Duration.ofSeconds(5)).build();
    private static final ClassSettings INTERACTIVE_LONG = ClassSettings.builder("interactive").priority(0)
            .maxQueueTime(Duration.ofSeconds(600)).mayDegrade(true).build();
    private static final ClassSettings BATCH = ClassSettings.builder("batch").priority(2)
            .maxQueueTime(Duration.ofSeconds(60)).pausable(true).build();

    private final FakeTicker ticker = new FakeTicker();
    private final RecordingListener listener = new RecordingListener();

    private AdmissionController controller(CapacityGate gate, ClassSettings... classes) {
        AdmissionSettings.Builder b = AdmissionSettings.builder();
        for (ClassSettings c : classes) {
            b.addClass(c);
        }
        return new AdmissionController(b.build(), gate, ticker, listener);
    }

    private AdmissionController controller(CapacityGate gate) {
        return controller(gate, BATCH, STANDARD, INTERACTIVE);
    }

    private static AdmissionRequest req(String cls, long tokens) {
        return AdmissionRequest.of(cls, tokens);
    }

    private static Admission.Admitted admitted(Admission a) {
        assertThat(a).isInstanceOf(Admission.Admitted.class);
        return (Admission.Admitted) a;
    }

    private static Admission.Rejected rejected(Admission a) {
        assertThat(a).isInstanceOf(Admission.Rejected.class);
        return (Admission.Rejected) a;
    }

    private static Ticket queued(Admission a) {
        assertThat(a).isInstanceOf(Admission.Queued.class);
        return ((Admission.Queued) a).ticket();
    }

    private static Admission outcome(Ticket t) {
        return t.outcome().toCompletableFuture().getNow(null);
    }

    @Test
    void offer_capacityFree_admitsAtOnce() {
        PoolCapacity pool = new PoolCapacity(4, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted a = admitted(c.offer(req("standard", 300)));
        assertThat(a.waited()).isZero();
        assertThat(a.degrade()).isFalse();
        assertThat(a.lease().tokens()).isEqualTo(300);
        assertThat(pool.inflightRequests()).isEqualTo(1);
        assertThat(pool.inflightTokens()).isEqualTo(300);
        assertThat(listener.events).containsExactly("dispatched standard");
        assertThat(listener.waits).containsExactly(Duration.ZERO);
    }

    @Test
    void tryAdmitNow_idleCapacity_admitsAsAnOfferWould() {
        PoolCapacity pool = new PoolCapacity(2, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted a = c.tryAdmitNow(req("standard", 300)).orElseThrow();
        assertThat(a.waited()).isZero();
        assertThat(pool.inflightRequests()).isEqualTo(1);
        assertThat(c.snapshot().inflightRequests()).isEqualTo(1);
        assertThat(listener.events).containsExactly("dispatched standard");
        a.lease().release();
        assertThat(pool.inflightRequests()).isZero();
        assertThat(c.snapshot().inflightRequests()).isZero();
    }

    @Test
    void tryAdmitNow_gateFull_changesNothing() {
        PoolCapacity pool = new PoolCapacity(1, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted running = admitted(c.offer(req("standard", 100)));
        assertThat(c.tryAdmitNow(req("interactive", 100))).isEmpty();
        assertThat(c.snapshot().classStats("interactive").queued()).isZero();
        assertThat(c.snapshot().rejections().values()).allMatch(n -> n == 0L);
        assertThat(listener.events).containsExactly("dispatched standard");
        running.lease().release();
        assertThat(c.tryAdmitNow(req("interactive", 100))).isPresent();
    }

    @Test
    void tryAdmitNow_someoneQueued_doesNotOvertakeThem() {
        PoolCapacity pool = new PoolCapacity(3, 1_000);
        AdmissionController c = controller(pool);
        admitted(c.offer(req("standard", 600)));
        Ticket waiting = queued(c.offer(req("batch", 600))); // 1,200 tokens would not fit: it waits at the head
        assertThat(c.tryAdmitNow(req("interactive", 100))).as("the gate has room for it, but not its turn").isEmpty();
        assertThat(outcome(waiting)).isNull();
        assertThat(pool.inflightRequests()).isEqualTo(1);
    }

    @Test
    void tryAdmitNow_overloaded_refusesThoughCapacityIsFree() {
        OverloadPolicy o = new OverloadPolicy(Duration.ofSeconds(1), Duration.ofMillis(200), 1_000_000, 1000,
                Duration.ofMillis(500), Duration.ofSeconds(2));
        AdmissionSettings s = AdmissionSettings.builder().addClass(INTERACTIVE_LONG).overload(o).build();
        PoolCapacity pool = new PoolCapacity(1, 100_000);
        AdmissionController c = new AdmissionController(s, pool, ticker, listener);
        Admission.Admitted running = admitted(c.offer(req("interactive", 10)));
        Ticket waiting = queued(c.offer(req("interactive", 10)));
        for (int t = 0; t < 16; t++) {
            ticker.advance(Duration.ofMillis(100));
            c.tick();
        }
        assertThat(c.overloaded()).isTrue();
        running.lease().release();
        ((Admission.Admitted) outcome(waiting)).lease().release(); // the pool is empty; overload lasts its exit time
        assertThat(pool.inflightRequests()).isZero();
        assertThat(c.tryAdmitNow(req("interactive", 10))).isEmpty();
        assertThat(pool.inflightRequests()).isZero();
    }

    @Test
    void offer_capacityBusy_queuesUntilRelease() {
        PoolCapacity pool = new PoolCapacity(1, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted first = admitted(c.offer(req("standard", 100)));
        Ticket ticket = queued(c.offer(req("standard", 100)));
        assertThat(outcome(ticket)).isNull();

        ticker.advance(Duration.ofMillis(700));
        first.lease().release();

        Admission.Admitted second = admitted(outcome(ticket));
        assertThat(second.waited()).isEqualTo(Duration.ofMillis(700));
        assertThat(listener.waits).containsExactly(Duration.ZERO, Duration.ofMillis(700));
        assertThat(pool.inflightRequests()).isEqualTo(1);
    }

    @Test
    void release_dispatchesInPriorityOrderThenFifo() {
        PoolCapacity pool = new PoolCapacity(1, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted running = admitted(c.offer(req("standard", 10)));
        List<Ticket> tickets = new ArrayList<>();
        for (String cls : List.of("batch", "standard", "batch", "interactive", "standard", "interactive")) {
            tickets.add(queued(c.offer(new AdmissionRequest(cls, 10, "", cls + tickets.size()))));
        }
        List<String> order = new ArrayList<>();
        AdmissionLease lease = running.lease();
        for (int i = 0; i < tickets.size(); i++) {
            lease.release();
            Ticket next = tickets.stream().filter(t -> outcome(t) != null && !order.contains(
                    (String) t.request().attachment())).findFirst().orElseThrow();
            order.add((String) next.request().attachment());
            lease = admitted(outcome(next)).lease();
        }
        assertThat(order).containsExactly("interactive3", "interactive5", "standard1", "standard4", "batch0",
                "batch2");
    }

    @Test
    void release_isIdempotent() {
        PoolCapacity pool = new PoolCapacity(1, 10_000);
        AdmissionController c = controller(pool);
        Admission.Admitted a = admitted(c.offer(req("standard", 10)));
        Ticket t1 = queued(c.offer(req("standard", 10)));
        Ticket t2 = queued(c.offer(req("standard", 10)));
        a.lease().release();
        a.lease().release();
        assertThat(outcome(t1)).isInstanceOf(Admission.Admitted.class);
        assertThat(outcome(t2)).isNull();
        assertThat(c.snapshot().inflightRequests()).isEqualTo(1);
        assertThat(a.lease().isReleased()).isTrue();
    }

    @Test
    void offer_requestBoundReached_rejectsQueueFullWithRetryAfterAtLeastOneSecond() {
        ClassSettings small = ClassSettings.builder("standard").maxQueueRequests(2).build();
        AdmissionController c = controller(new PoolCapacity(1, 10_000), small);
        admitted(c.offer(req("standard", 10)));
        queued(c.offer(req("standard", 10)));
        queued(c.offer(req("standard", 10)));
        Admission.Rejected r = rejected(c.offer(req("standard", 10)));
        assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_FULL);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.reason().httpStatus()).isEqualTo(429);
        assertThat(c.snapshot().rejections()).containsEntry(RejectReason.QUEUE_FULL, 1L);
        assertThat(listener.events).endsWith("rejected standard QUEUE_FULL");
    }

    @Test
    void offer_tokenBoundReached_rejectsQueueFull() {
        ClassSettings small = ClassSettings.builder("standard").maxQueueTime(Duration.ofSeconds(100))
                .maxQueueTokens(1000).build();
        AdmissionController c = controller(new PoolCapacity(1, 100_000), small);
        admitted(c.offer(req("standard", 10)));
        queued(c.offer(req("standard", 600)));
        queued(c.offer(req("standard", 400)));
        assertThat(rejected(c.offer(req("standard", 1))).reason()).isEqualTo(RejectReason.QUEUE_FULL);
        assertThat(c.snapshot().classStats("standard").queuedTokens()).isEqualTo(1000);
    }

    @Test
    void offer_requestLargerThanTokenBound_queuesWhenAlone() {
        ClassSettings small = ClassSettings.builder("standard").maxQueueTime(Duration.ofSeconds(100))
                .maxQueueTokens(1000).build();
        AdmissionController c = controller(new PoolCapacity(1, 100_000), small);
        admitted(c.offer(req("standard", 10)));
        queued(c.offer(req("standard", 5000)));
        assertThat(rejected(c.offer(req("standard", 1))).reason()).isEqualTo(RejectReason.QUEUE_FULL);
    }

    @Test
    void offer_reservesPromptAndMaxTokens_bigRequestBlocksSmallOnes() {
        PoolCapacity pool = new PoolCapacity(10, 1000);
        AdmissionController c = controller(pool);
        TokenEstimator estimator = TokenEstimator.heuristic();
        long cost = estimator.cost("x".repeat(2000), java.util.OptionalLong.of(300), 256); // 500 + 300
        assertThat(cost).isEqualTo(800);
        Admission.Admitted big = admitted(c.offer(req("standard", cost)));
        assertThat(pool.inflightTokens()).isEqualTo(800);
        admitted(c.offer(req("standard", 200)));
        // Concurrency would allow eight more, tokens allow none.
        Ticket waiting = queued(c.offer(req("standard", 100)));
        assertThat(c.snapshot().inflightTokens()).isEqualTo(1000);

        big.lease().release();
        assertThat(outcome(waiting)).isInstanceOf(Admission.Admitted.class);
        assertThat(pool.inflightTokens()).isEqualTo(300);
        assertThat(pool.inflightRequests()).isEqualTo(2);
    }

    @Test
    void dispatch_refusedHead_isNotOvertakenInItsClassOrByLowerClasses() {
        PoolCapacity pool = new PoolCapacity(10, 1000);
        AdmissionController c = controller(pool);
        Admission.Admitted running = admitted(c.offer(req("standard", 600)));
        Ticket big = queued(c.offer(req("standard", 900)));
        Ticket small = queued(c.offer(req("standard", 100)));
        Ticket lower = queued(c.offer(req("batch", 100)));
        assertThat(outcome(small)).isNull();
        assertThat(outcome(lower)).isNull();

        running.lease().release();
        assertThat(outcome(big)).isInstanceOf(Admission.Admitted.class);
        assertThat(outcome(small)).isInstanceOf(Admission.Admitted.class);
        assertThat(outcome(lower)).isNull(); // 900 + 100 fill the budget
    }

    @Test
    void offer_estimatedWaitAboveMaxQueueTime_rejectsWithRetryAfterFromDrainRate() {
        // Prior drain rate 1000 tokens/s and a 2 s limit: at most 2000 tokens ahead.
        AdmissionController c = controller(new PoolCapacity(1, 100_000));
        admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("interactive", 1500)));
        queued(c.offer(req("interactive", 500)));
        queued(c.offer(req("interactive", 100))); // exactly 2.0 s ahead: allowed
        Admission.Rejected r = rejected(c.offer(req("interactive", 100))); // 2.1 s ahead
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(r.retryAfterSeconds()).isEqualTo(3);
        assertThat(r.message()).contains("2100 ms").contains("interactive");
    }

    @Test
    void offer_priorNotConfigured_unmeasured_queuesInsteadOfShedding() {
        // As above, but the prior is the default guess: a fresh gateway does not turn requests away on it.
        AdmissionSettings settings = AdmissionSettings.builder().addClass(INTERACTIVE).shedOnPrior(false).build();
        AdmissionController c = new AdmissionController(settings, new PoolCapacity(1, 100_000), ticker, listener);
        admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("interactive", 1500)));
        queued(c.offer(req("interactive", 500)));
        Ticket late = queued(c.offer(req("interactive", 100_000 - 2_010))); // 100 s "ahead" at the prior: queued
        // The max queue time still holds: nothing finished within the limit, so the queued request expires.
        ticker.advance(INTERACTIVE.maxQueueTime().plusMillis(1));
        c.tick();
        assertThat(rejected(outcome(late)).reason()).isEqualTo(RejectReason.QUEUE_TIMEOUT);
    }

    @Test
    void offer_waitEstimate_countsOwnAndHigherClassesOnly() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000));
        admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("batch", 59_900)));
        // 59.9 s of batch ahead in time, but none of it is ahead of interactive.
        queued(c.offer(req("interactive", 100)));
        ticker.advance(Duration.ofHours(1)); // no tick: the backlog stays, the interactive arrival rate fades to 0
        queued(c.offer(req("batch", 1))); // 60.0 s ahead (interactive counts): allowed
        Admission.Rejected r = rejected(c.offer(req("batch", 1))); // 60.001 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
    }

    private static ClassSettings batchWithin10s(double share) {
        return ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(10)).share(share).build();
    }

    /**
     * Interactive requests of {@code tokens} every 100 ms for 30 s (nine arrival-rate time constants), each
     * admitted at once and finished before the next; returns the last one's lease, still holding the pool.
     * The pool never saturates, so the drain rate stays at its 1000 tokens/s prior.
     */
    private AdmissionLease interactiveStream(AdmissionController c, long tokens) {
        AdmissionLease last = null;
        for (int i = 0; i < 300; i++) {
            ticker.advance(Duration.ofMillis(100));
            if (last != null) {
                last.release();
            }
            last = admitted(c.offer(req("interactive", tokens))).lease();
        }
        assertThat(c.drainRate()).isEqualTo(1000.0);
        return last;
    }

    @Test
    void offer_batchBehindSteadyInteractiveStream_rejectsWaitTooLongAtTheRateLeftOver() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0));
        interactiveStream(c, 60); // 600 tokens/s: 400 of the 1000 left for batch
        queued(c.offer(req("batch", 5000)));
        // 5000 tokens ahead: 5 s at the whole drain rate would queue it to time out; 12.5 s at the 400 left.
        Admission.Rejected r = rejected(c.offer(req("batch", 100)));
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.reason().httpStatus()).isEqualTo(429);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(13));
        assertThat(r.message()).contains("10000 ms limit of class batch");
    }

    @Test
    void offer_noHigherClassTraffic_estimatesWithTheWholeDrainRate() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0));
        admitted(c.offer(req("batch", 10)));
        queued(c.offer(req("batch", 9000)));
        queued(c.offer(req("batch", 1000))); // 9.0 s ahead
        queued(c.offer(req("batch", 1))); // 10.0 s ahead: allowed
        Admission.Rejected r = rejected(c.offer(req("batch", 1))); // 10.001 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void offer_higherClassStreamEnded_itsRateFades() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0));
        interactiveStream(c, 60);
        ticker.advance(Duration.ofSeconds(30)); // nine time constants: 600 tokens/s fade to about 0.07
        queued(c.offer(req("batch", 9000)));
        queued(c.offer(req("batch", 1))); // 9.0 s ahead; it would be 22.5 s at 400 tokens/s
    }

    @Test
    void offer_topClass_estimatesWithTheWholeDrainRateWhateverItsOwnTraffic() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0));
        interactiveStream(c, 60);
        queued(c.offer(req("interactive", 1500)));
        queued(c.offer(req("interactive", 500)));
        queued(c.offer(req("interactive", 1))); // 2.0 s ahead at 1000 tokens/s: allowed
        Admission.Rejected r = rejected(c.offer(req("interactive", 1))); // 2.001 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void offer_higherClassesOfferMoreThanTheDrainRate_shareIsTheFloor() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0.2));
        interactiveStream(c, 150); // 1500 tokens/s, capped to the 1000 drained: nothing left but the share
        queued(c.offer(req("batch", 1500)));
        queued(c.offer(req("batch", 600))); // 7.5 s ahead at 0.2 × 1000 tokens/s
        Admission.Rejected r = rejected(c.offer(req("batch", 1))); // 10.5 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void offer_higherClassesOfferMoreThanTheDrainRateAndNoShare_rateFloorIsOneTokenPerSecond() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE, batchWithin10s(0));
        interactiveStream(c, 150);
        queued(c.offer(req("batch", 5)));
        queued(c.offer(req("batch", 6))); // 5 s ahead at 1 token/s
        Admission.Rejected r = rejected(c.offer(req("batch", 1))); // 11 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void offer_rejectedHigherClassRequests_doNotCountAsArrivals() {
        ClassSettings tiny = ClassSettings.builder("interactive").priority(0).maxQueueRequests(1).build();
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), tiny, batchWithin10s(0));
        admitted(c.offer(req("interactive", 1)));
        queued(c.offer(req("interactive", 1)));
        for (int i = 0; i < 100; i++) {
            assertThat(rejected(c.offer(req("interactive", 1000))).reason()).isEqualTo(RejectReason.QUEUE_FULL);
        }
        queued(c.offer(req("batch", 9000)));
        queued(c.offer(req("batch", 1))); // 9.001 s ahead: the 100,000 rejected tokens left the rate near 1000
    }

    @Test
    void retryAfter_isCappedByMaxRetryAfter() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000));
        admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("batch", 59_000)));
        queued(c.offer(req("batch", 30_000))); // 59 s ahead, limit 60 s
        Admission.Rejected r = rejected(c.offer(req("batch", 10))); // 89 s ahead
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(AdmissionSettings.DEFAULT_MAX_RETRY_AFTER);
    }

    @Test
    void offer_unknownClass_throws() {
        AdmissionController c = controller(new PoolCapacity(1, 1000));
        assertThatThrownBy(() -> c.offer(req("gold", 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gold");
    }

    @Test
    void tick_requestOlderThanMaxQueueTime_expiresWithQueueTimeout() {
        AdmissionController c = controller(new PoolCapacity(1, 100_000));
        admitted(c.offer(req("interactive", 10)));
        Ticket old = queued(c.offer(req("interactive", 300)));
        ticker.advance(Duration.ofSeconds(1));
        Ticket young = queued(c.offer(req("interactive", 200)));
        ticker.advance(Duration.ofSeconds(1));
        c.tick();
        assertThat(outcome(old)).isNull(); // exactly 2 s: not yet past the limit

        ticker.advance(Duration.ofMillis(1));
        c.tick();
        Admission.Rejected r = rejected(outcome(old));
        assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_TIMEOUT);
        assertThat(r.reason().httpStatus()).isEqualTo(503);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(outcome(young)).isNull();
        AdmissionSnapshot.ClassStats stats = c.snapshot().classStats("interactive");
        assertThat(stats.queued()).isEqualTo(1);
        assertThat(stats.queuedTokens()).isEqualTo(200);
        assertThat(stats.oldestWait()).isEqualTo(Duration.ofMillis(1001));
        assertThat(c.snapshot().rejections()).containsEntry(RejectReason.QUEUE_TIMEOUT, 1L);
        assertThat(listener.events).endsWith("rejected interactive QUEUE_TIMEOUT");

        ticker.advance(Duration.ofSeconds(1));
        c.tick();
        assertThat(rejected(outcome(young)).reason()).isEqualTo(RejectReason.QUEUE_TIMEOUT);
    }

    @Test
    void cancel_queuedTicket_leavesQueueAndFreesItsTokens() {
        ClassSettings small = ClassSettings.builder("standard").maxQueueTokens(1000).maxQueueRequests(2).build();
        AdmissionController c = controller(new PoolCapacity(1, 100_000), small);
        Admission.Admitted running = admitted(c.offer(req("standard", 10)));
        Ticket a = queued(c.offer(req("standard", 700)));
        Ticket b = queued(c.offer(req("standard", 200)));
        assertThat(rejected(c.offer(req("standard", 200))).reason()).isEqualTo(RejectReason.QUEUE_FULL);

        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).isFalse();
        Admission.Rejected r = rejected(outcome(a));
        assertThat(r.reason()).isEqualTo(RejectReason.CANCELLED);
        assertThat(r.retryAfter()).isZero();
        assertThat(c.snapshot().classStats("standard").queuedTokens()).isEqualTo(200);
        Ticket d = queued(c.offer(req("standard", 700)));

        running.lease().release();
        assertThat(outcome(b)).isInstanceOf(Admission.Admitted.class);
        assertThat(outcome(d)).isNull();
        assertThat(c.snapshot().rejections()).containsEntry(RejectReason.CANCELLED, 1L);
    }

    @Test
    void cancel_afterDispatch_returnsFalseAndLeavesLeaseToCaller() {
        PoolCapacity pool = new PoolCapacity(1, 100_000);
        AdmissionController c = controller(pool);
        Admission.Admitted running = admitted(c.offer(req("standard", 10)));
        Ticket t = queued(c.offer(req("standard", 10)));
        running.lease().release();
        assertThat(t.cancel()).isFalse();
        Admission.Admitted a = admitted(outcome(t));
        assertThat(pool.inflightRequests()).isEqualTo(1);
        a.lease().release();
        assertThat(pool.inflightRequests()).isZero();
    }

    @Test
    void cancel_refusedHead_letsTheNextOneThrough() {
        PoolCapacity pool = new PoolCapacity(10, 1000);
        AdmissionController c = controller(pool);
        admitted(c.offer(req("standard", 600)));
        Ticket big = queued(c.offer(req("standard", 900)));
        Ticket small = queued(c.offer(req("standard", 100)));
        big.cancel();
        assertThat(outcome(small)).isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void share_lowerClassGetsOneDispatchInEveryOneOverShare() {
        ClassSettings batch = ClassSettings.builder("batch").priority(2).maxQueueTime(Duration.ofSeconds(600))
                .share(0.1).build();
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE_LONG, batch);
        AdmissionLease lease = admitted(c.offer(req("interactive", 1))).lease();
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tickets.add(queued(c.offer(req("batch", 1))));
        }
        for (int i = 0; i < 40; i++) {
            tickets.add(queued(c.offer(req("interactive", 1))));
        }
        List<Integer> batchTurns = new ArrayList<>();
        for (int turn = 1; turn <= 43; turn++) {
            lease.release();
            Ticket next = null;
            for (Ticket t : tickets) {
                if (outcome(t) instanceof Admission.Admitted a && !a.lease().isReleased()) {
                    next = t;
                }
            }
            assertThat(next).isNotNull();
            if (next.request().trafficClass().equals("batch")) {
                batchTurns.add(turn);
            }
            lease = ((Admission.Admitted) outcome(next)).lease();
        }
        assertThat(batchTurns).containsExactly(11, 21, 31);
    }

    @Test
    void share_zero_isStrictPriority() {
        AdmissionController c = controller(new PoolCapacity(1, 1_000_000), INTERACTIVE_LONG,
                BATCH);
        AdmissionLease lease = admitted(c.offer(req("interactive", 1))).lease();
        Ticket batch = queued(c.offer(req("batch", 1)));
        List<Ticket> interactive = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            interactive.add(queued(c.offer(req("interactive", 1))));
        }
        for (Ticket t : interactive) {
            lease.release();
            lease = admitted(outcome(t)).lease();
            assertThat(outcome(batch)).isNull();
        }
        lease.release();
        assertThat(outcome(batch)).isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void callback_releasingAtOnce_dispatchesTheNextWaiter() {
        AdmissionController c = controller(new PoolCapacity(1, 100_000));
        Admission.Admitted running = admitted(c.offer(req("standard", 10)));
        Ticket a = queued(c.offer(req("standard", 10)));
        Ticket b = queued(c.offer(req("standard", 10)));
        // A request that fails at once releases its lease from inside the future's callback.
        a.outcome().thenAccept(o -> ((Admission.Admitted) o).lease().release());
        running.lease().release();
        assertThat(outcome(b)).isInstanceOf(Admission.Admitted.class);
        assertThat(c.snapshot().inflightRequests()).isEqualTo(1);
        assertThat(c.snapshot().dispatched()).isEqualTo(3);
    }

    @Test
    void drainRate_measuredWhileSaturated_drivesWaitEstimate() {
        AdmissionSettings settings = AdmissionSettings.builder().addClass(INTERACTIVE).drainAlpha(0.5).build();
        AdmissionController c = new AdmissionController(settings, new PoolCapacity(1, 100_000), ticker, listener);
        assertThat(c.drainRate()).isEqualTo(1000.0);
        assertThat(c.snapshot().drainRateMeasured()).isFalse();

        Admission.Admitted a = admitted(c.offer(req("interactive", 100)));
        Ticket b = queued(c.offer(req("interactive", 100)));
        ticker.advance(Duration.ofSeconds(2));
        a.lease().release(); // 100 tokens in 2 s of saturation
        assertThat(c.drainRate()).isEqualTo(50.0);
        assertThat(c.snapshot().drainRateMeasured()).isTrue();

        queued(c.offer(req("interactive", 100)));
        assertThat(c.offer(req("interactive", 1))).isInstanceOf(Admission.Queued.class); // 2.0 s ahead
        Admission.Rejected r = rejected(c.offer(req("interactive", 1))); // 101 tokens: 2.02 s
        assertThat(r.reason()).isEqualTo(RejectReason.WAIT_TOO_LONG);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(outcome(b)).isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void drainRate_releasesWhileIdle_doNotCount() {
        AdmissionController c = controller(new PoolCapacity(4, 100_000));
        Admission.Admitted a = admitted(c.offer(req("standard", 100)));
        ticker.advance(Duration.ofSeconds(10));
        a.lease().release();
        assertThat(c.drainRate()).isEqualTo(1000.0);
        assertThat(c.snapshot().drainRateMeasured()).isFalse();
    }

    @Test
    void overload_entersAfterEnterAfterAndLeavesAfterExitAfter() {
        OverloadPolicy o = new OverloadPolicy(Duration.ofSeconds(1), Duration.ofMillis(200), 1_000_000, 1000,
                Duration.ofMillis(500), Duration.ofSeconds(2));
        AdmissionSettings s = AdmissionSettings.builder().addClass(INTERACTIVE_LONG).overload(o).build();
        AdmissionController c = new AdmissionController(s, new PoolCapacity(1, 100_000), ticker, listener);
        Admission.Admitted running = admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("interactive", 10)));
        for (int t = 100; t <= 1400; t += 100) {
            ticker.advance(Duration.ofMillis(100));
            c.tick();
            assertThat(c.overloaded()).as("at %d ms", t).isFalse();
        }
        ticker.advance(Duration.ofMillis(100));
        c.tick(); // age at or above 1 s since 1000 ms, for 500 ms now
        assertThat(c.overloaded()).isTrue();
        assertThat(c.skipOptionalWork()).isTrue();
        assertThat(listener.events).contains("overload on");

        running.lease().release(); // the waiter leaves: age 0
        for (int t = 100; t <= 2000; t += 100) {
            ticker.advance(Duration.ofMillis(100));
            c.tick(); // below the exit thresholds from the first tick, at +100 ms
            assertThat(c.overloaded()).as("%d ms after the queue emptied", t).isTrue();
        }
        ticker.advance(Duration.ofMillis(100));
        c.tick();
        assertThat(c.overloaded()).isFalse();
        assertThat(c.skipOptionalWork()).isFalse();
        assertThat(listener.events).containsSubsequence("overload on", "overload off");
    }

    @Test
    void overload_pendingTokensBetweenThresholds_keepsTheCurrentState() {
        OverloadPolicy o = new OverloadPolicy(Duration.ofSeconds(100), Duration.ofSeconds(50), 1000, 100,
                Duration.ZERO, Duration.ZERO);
        AdmissionSettings s = AdmissionSettings.builder().addClass(INTERACTIVE_LONG).overload(o).build();
        AdmissionController c = new AdmissionController(s, new PoolCapacity(1, 100_000), ticker, listener);
        Admission.Admitted running = admitted(c.offer(req("interactive", 10)));
        Ticket mid = queued(c.offer(req("interactive", 500)));
        c.tick();
        assertThat(c.overloaded()).isFalse(); // 500 is below 1000
        Ticket more = queued(c.offer(req("interactive", 500)));
        c.tick();
        assertThat(c.overloaded()).isTrue(); // 1000
        more.cancel();
        c.tick();
        assertThat(c.overloaded()).isTrue(); // 500 is above 100
        running.lease().release(); // mid dispatched: 0 pending
        c.tick();
        assertThat(c.overloaded()).isFalse();
        assertThat(outcome(mid)).isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void overload_pausesBatchAndDegradesMayDegradeClasses() {
        OverloadPolicy o = new OverloadPolicy(Duration.ofSeconds(100), Duration.ofSeconds(50), 1000, 100,
                Duration.ZERO, Duration.ofSeconds(1));
        AdmissionSettings s = AdmissionSettings.builder().addClass(INTERACTIVE).addClass(STANDARD).addClass(BATCH)
                .overload(o).build();
        AdmissionController c = new AdmissionController(s, new PoolCapacity(1, 100_000), ticker, listener);
        Admission.Admitted running = admitted(c.offer(req("interactive", 10)));
        Ticket batch = queued(c.offer(req("batch", 10)));
        Ticket interactive = queued(c.offer(req("interactive", 1500)));
        Ticket standard = queued(c.offer(req("standard", 10)));
        c.tick();
        assertThat(c.overloaded()).isTrue();
        assertThat(c.shouldDegrade("interactive")).isTrue();
        assertThat(c.shouldDegrade("standard")).isFalse();

        Admission.Rejected r = rejected(c.offer(req("batch", 10)));
        assertThat(r.reason()).isEqualTo(RejectReason.OVERLOAD_PAUSED);
        assertThat(r.reason().httpStatus()).isEqualTo(429);
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(2)); // 1510 pending tokens at 1000/s beat exit_after 1 s

        running.lease().release();
        Admission.Admitted degraded = admitted(outcome(interactive));
        assertThat(degraded.degrade()).isTrue();
        degraded.lease().release();
        Admission.Admitted normal = admitted(outcome(standard));
        assertThat(normal.degrade()).isFalse();
        normal.lease().release();
        assertThat(outcome(batch)).isNull(); // capacity free, but batch is paused
        assertThat(c.snapshot().classStats("batch").paused()).isTrue();
        assertThat(c.snapshot().classStats("batch").queued()).isEqualTo(1);

        c.tick(); // nothing pending outside batch: below the exit thresholds from now
        assertThat(c.overloaded()).isTrue();
        ticker.advance(Duration.ofSeconds(1));
        c.tick();
        assertThat(c.overloaded()).isFalse();
        assertThat(outcome(batch)).isInstanceOf(Admission.Admitted.class);
        assertThat(listener.events).containsExactly(
                "dispatched interactive",
                "overload on",
                "rejected batch OVERLOAD_PAUSED",
                "dispatched interactive degraded",
                "dispatched standard",
                "overload off",
                "dispatched batch");
    }

    @Test
    void overload_pausedBatchBacklog_doesNotKeepThePoolOverloaded() {
        OverloadPolicy o = new OverloadPolicy(Duration.ofSeconds(1), Duration.ofMillis(100), 1_000_000, 1000,
                Duration.ZERO, Duration.ZERO);
        AdmissionSettings s = AdmissionSettings.builder().addClass(INTERACTIVE).addClass(BATCH).overload(o).build();
        AdmissionController c = new AdmissionController(s, new PoolCapacity(1, 100_000), ticker, listener);
        Admission.Admitted running = admitted(c.offer(req("batch", 10)));
        queued(c.offer(req("batch", 10)));
        ticker.advance(Duration.ofSeconds(5));
        c.tick();
        assertThat(c.overloaded()).isFalse(); // a batch backlog alone is not overload
        running.lease().release();
    }

    @Test
    void snapshot_reportsQueuesCountersAndState() {
        AdmissionController c = controller(new PoolCapacity(1, 100_000));
        admitted(c.offer(req("interactive", 10)));
        queued(c.offer(req("standard", 300)));
        queued(c.offer(req("standard", 200)));
        ticker.advance(Duration.ofMillis(250));
        queued(c.offer(req("batch", 50)));
        AdmissionSnapshot s = c.snapshot();
        assertThat(s.overloaded()).isFalse();
        assertThat(s.dispatched()).isEqualTo(1);
        assertThat(s.drainRate()).isEqualTo(1000.0);
        assertThat(s.inflightRequests()).isEqualTo(1);
        assertThat(s.inflightTokens()).isEqualTo(10);
        assertThat(s.classes()).extracting(AdmissionSnapshot.ClassStats::name)
                .containsExactly("interactive", "standard", "batch");
        assertThat(s.classStats("standard").queued()).isEqualTo(2);
        assertThat(s.classStats("standard").queuedTokens()).isEqualTo(500);
        assertThat(s.classStats("standard").oldestWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.classStats("batch").oldestWait()).isZero();
        assertThat(s.classStats("interactive").queued()).isZero();
        assertThat(s.rejections()).hasSize(RejectReason.values().length).containsValue(0L);
    }

    @Test
    void listener_failure_goesToUncaughtHandlerAndAdmissionStillHappens() {
        AdmissionListener failing = new AdmissionListener() {
            @Override
            public void onDispatched(String trafficClass, String tenant, Duration waited, boolean degraded) {
                throw new IllegalStateException("listener bug");
            }
        };
        AdmissionController c = new AdmissionController(AdmissionSettings.builder().addClass(STANDARD).build(),
                new PoolCapacity(1, 1000), ticker, failing);
        List<Throwable> uncaught = new ArrayList<>();
        Thread thread = Thread.currentThread();
        Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
        thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            Admission.Admitted a = admitted(c.offer(req("standard", 10)));
            Ticket t = queued(c.offer(req("standard", 10)));
            a.lease().release();
            assertThat(outcome(t)).isInstanceOf(Admission.Admitted.class);
        } finally {
            thread.setUncaughtExceptionHandler(previous);
        }
        assertThat(uncaught).hasSize(2).allMatch(e -> e.getMessage().equals("listener bug"));
    }
}
