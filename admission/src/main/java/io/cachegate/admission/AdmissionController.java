package io.cachegate.admission;

import io.cachegate.config.OverloadPolicy;
import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * Admission for one backend pool: per-class bounded queues in front of a {@link CapacityGate}.
 * Thread-safe with one lock (simple beats clever); it never blocks beyond that lock, starts no thread
 * and runs futures and listeners after releasing it. The gateway calls {@link #tick()} every 10-50 ms.
 *
 * <p><b>Dispatch.</b> Whenever capacity may be free (an offer, a release, a cancel, a tick) the
 * controller picks a class, offers its oldest request to the gate, and repeats until the gate says no.
 * The pick is the highest-priority class (lowest priority number) with credit of at least one whole
 * dispatch, else simply the highest-priority class with a waiting request. After every dispatch, each
 * class with a {@code share} that still has requests waiting gains {@code share} credit, and the
 * class picked pays one if it had a whole credit. So a class with share {@code s} waiting behind busy
 * higher classes gets one dispatch in every {@code 1/s} (share 0.1: the 11th, 21st, 31st...): batch is
 * delayed, never starved. A class gains no credit while empty or paused, and loses it when it empties.
 * Nothing overtakes a head the gate refuses, so a large request is not starved by small ones.
 *
 * <p><b>Fair shares.</b> Within a class, each tenant's requests wait in a lane of their own and the class's head is
 * chosen between the lanes in start-time fair order by token cost and the tenant's weight ({@link TenantQueues},
 * {@link #tenantWeights}): a tenant sending ten times the others gets its share, not the whole class. Its wait is
 * estimated from the tokens ahead of it in that order, and a full queue turns away the newest request of the tenant
 * furthest over its share of the queued tokens first (with {@link RejectReason#QUEUE_FULL}), not the arrival of a
 * tenant within its share. Off ({@link AdmissionSettings#fairShare()}), one lane holds every request: first come,
 * first served.
 *
 * <p><b>In-flight caps.</b> Nothing is pre-empted, so a class that filled the whole pool would make every
 * higher-class arrival wait for one of its requests to finish. A class may therefore hold at most
 * {@code max(1, floor(maxInflightShare × capacityRequests))} requests in flight (admitted, not yet released;
 * no cap when the share is 1 or the capacity unknown). A class at its cap is skipped by the pick, like a
 * paused one: its head waits (its requests still expire), an arrival of it is queued even if the gate has
 * room, it gains no share credit, and the classes after it may still be dispatched if under their own caps.
 * That is not overtaking: the gate has not refused the capped head, the class has used up its slots.
 *
 * <p><b>Early rejection.</b> On arrival a request is rejected with {@link RejectReason#QUEUE_FULL} when
 * its class queue holds its maximum of requests or tokens, and with {@link RejectReason#WAIT_TOO_LONG}
 * when the tokens queued in its class and the classes dispatched before it, divided by the rate
 * available to its class, exceed its class's max queue time ({@link WaitEstimate}), once the drain rate has been
 * measured or when the prior is trusted ({@link AdmissionSettings#shedOnPrior()}). A queued request older than
 * that is rejected by {@code tick} with {@link RejectReason#QUEUE_TIMEOUT}. Retry-After is the time to drain the
 * tokens queued ahead at that available rate.
 *
 * <p><b>Overload</b> (see {@link OverloadPolicy}, evaluated on each tick): pausable classes reject new
 * requests with {@link RejectReason#OVERLOAD_PAUSED} (Retry-After at least {@code exitAfter}) and keep
 * their queued requests without dispatching them, until overload ends or their max queue time expires
 * them; classes that may degrade are admitted with {@code degrade=true}; {@link #skipOptionalWork()}
 * is true.
 */
public final class AdmissionController {

    private final AdmissionSettings settings;
    private final IntSupplier capacity;
    private final CapacityGate gate;
    private final Ticker ticker;
    private final AdmissionListener listener;
    private final ReentrantLock lock = new ReentrantLock();
    /** Tenants' weights in fair order (1 when absent); replaced whole by a policy reload. */
    private volatile Map<String, Double> tenantWeights = Map.of();
    /** Numbers tickets in arrival order; guarded by the lock. */
    private long arrivals;
    /** In dispatch order: priority, then the order of the settings. */
    private final List<ClassQueue> queues;
    private final Map<String, ClassQueue> byName = new HashMap<>();
    private final OverloadDetector overload;
    private final DrainRate drain;
    private final WaitEstimate estimate;
    private final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
    private long dispatched;
    private int inflightRequests;
    private long inflightTokens;

    public AdmissionController(AdmissionSettings settings, CapacityGate gate, Ticker ticker,
                               AdmissionListener listener) {
        this(settings, gate, ticker, listener, settings::capacityRequests);
    }

    /**
     * As above, with a pool capacity that moves ({@code capacityRequests}, read when a cap is checked, at least
     * 1): replicas whose request limits adapt to their latency. Classes' in-flight shares are shares of it.
     */
    public AdmissionController(AdmissionSettings settings, CapacityGate gate, Ticker ticker,
                               AdmissionListener listener, IntSupplier capacityRequests) {
        this.capacity = Objects.requireNonNull(capacityRequests, "capacityRequests");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.listener = Objects.requireNonNull(listener, "listener");
        List<ClassSettings> ordered = new ArrayList<>(settings.classes());
        ordered.sort(Comparator.comparingInt(ClassSettings::priority)); // stable: ties keep their order
        List<ClassQueue> list = new ArrayList<>();
        long now = ticker.nanos();
        double arrivalTauNanos = Nanos.of(settings.drainWindow()) / settings.drainAlpha();
        for (ClassSettings c : ordered) {
            ClassQueue q = new ClassQueue(c, list.size(), new ArrivalRate(arrivalTauNanos, now));
            list.add(q);
            byName.put(c.name(), q);
        }
        this.queues = List.copyOf(list);
        this.overload = new OverloadDetector(settings.overload());
        this.drain = new DrainRate(settings.initialDrainRate(), Nanos.of(settings.drainWindow()),
                settings.drainAlpha(), now);
        this.estimate = new WaitEstimate(queues, drain, this::capacity, settings.maxRetryAfter(),
                settings.overload().exitAfter());
        for (RejectReason r : RejectReason.values()) {
            rejections.put(r, 0L);
        }
    }

    /** The tenants' weights in their classes' fair order, from the policy ({@code tenants[].weight}, default 1). */
    public void tenantWeights(Map<String, Double> weights) {
        tenantWeights = Map.copyOf(weights);
    }

    public AdmissionSettings settings() {
        return settings;
    }

    /**
     * Admits the request now, queues it, or rejects it. A cache hit must not be offered.
     *
     * @throws IllegalArgumentException for a class the settings do not declare (a wiring bug)
     */
    public Admission offer(AdmissionRequest request) {
        ClassQueue q = byName.get(request.trafficClass());
        if (q == null) {
            throw new IllegalArgumentException("unknown traffic class " + request.trafficClass());
        }
        Effects fx = new Effects();
        Admission result;
        lock.lock();
        try {
            long now = ticker.nanos();
            result = admit(q, request, now, fx);
            drain.busy(now, dispatchableWaiting());
        } finally {
            lock.unlock();
        }
        fx.run();
        return result;
    }

    /**
     * Admits the request only if it can go at once without taking anyone's turn: not overloaded, nothing queued in
     * any class, its class neither paused nor at its cap, and the gate has room. Otherwise empty, with nothing
     * changed: for a call started on speculation (a cache may still answer the request), which must never queue
     * nor turn a request away.
     *
     * @throws IllegalArgumentException for a class the settings do not declare (a wiring bug)
     */
    public Optional<Admission.Admitted> tryAdmitNow(AdmissionRequest request) {
        ClassQueue q = byName.get(request.trafficClass());
        if (q == null) {
            throw new IllegalArgumentException("unknown traffic class " + request.trafficClass());
        }
        Effects fx = new Effects();
        Admission.Admitted admitted;
        lock.lock();
        try {
            boolean over = overload.overloaded();
            if (over || q.paused(false) || q.capped(capacity()) || queues.stream().anyMatch(c -> !c.isEmpty())) {
                return Optional.empty();
            }
            Optional<Lease> granted = gate.tryAcquire(request);
            if (granted.isEmpty()) {
                return Optional.empty();
            }
            long now = ticker.nanos();
            q.arrivals.arrived(now, request.tokens());
            q.inflight++;
            admitted = admitted(q, granted.get(), request, Duration.ZERO, false, fx);
            drain.busy(now, dispatchableWaiting());
        } finally {
            lock.unlock();
        }
        fx.run();
        return Optional.of(admitted);
    }

    /** Expires queued requests past their max queue time, evaluates overload and dispatches. */
    public void tick() {
        Effects fx = new Effects();
        lock.lock();
        try {
            long now = ticker.nanos();
            expire(now, fx);
            evaluateOverload(now, fx);
            dispatch(now, fx);
            drain.busy(now, dispatchableWaiting());
        } finally {
            lock.unlock();
        }
        fx.run();
    }

    /** True while overloaded. */
    public boolean overloaded() {
        lock.lock();
        try {
            return overload.overloaded();
        } finally {
            lock.unlock();
        }
    }

    /** True while overloaded: skip optional work such as semantic-cache write-back. */
    public boolean skipOptionalWork() {
        return overloaded();
    }

    /** Whether a request of this class would now be degraded; lets the gateway pick the fallback's pool up front. */
    public boolean shouldDegrade(String trafficClass) {
        ClassQueue q = byName.get(trafficClass);
        return q != null && q.settings.mayDegrade() && overloaded();
    }

    /** The estimated drain rate in tokens per second. */
    public double drainRate() {
        lock.lock();
        try {
            return drain.rate();
        } finally {
            lock.unlock();
        }
    }

    public AdmissionSnapshot snapshot() {
        lock.lock();
        try {
            long now = ticker.nanos();
            boolean over = overload.overloaded();
            List<AdmissionSnapshot.ClassStats> stats = new ArrayList<>(queues.size());
            for (ClassQueue q : queues) {
                Ticket first = q.oldest();
                Duration oldest = first == null ? Duration.ZERO : Duration.ofNanos(now - first.enqueuedNanos);
                stats.add(new AdmissionSnapshot.ClassStats(q.name(), q.size(), q.tokens(), oldest, q.paused(over),
                        q.inflight));
            }
            return new AdmissionSnapshot(over, drain.rate(), drain.measured(), dispatched, inflightRequests,
                    inflightTokens, rejections, stats);
        } finally {
            lock.unlock();
        }
    }

    boolean cancel(Ticket ticket) {
        Effects fx = new Effects();
        lock.lock();
        try {
            if (!ticket.waiting) {
                return false;
            }
            long now = ticker.nanos();
            ticket.waiting = false;
            ticket.queue.remove(ticket);
            fx.complete(ticket.future, reject(ticket.queue, RejectReason.CANCELLED, Duration.ZERO,
                    "client went away while queued", fx));
            // The cancelled request may have been a head the gate refused.
            dispatch(now, fx);
            drain.busy(now, dispatchableWaiting());
        } finally {
            lock.unlock();
        }
        fx.run();
        return true;
    }

    void released(AdmissionLease lease) {
        Effects fx = new Effects();
        lock.lock();
        try {
            long now = ticker.nanos();
            drain.released(now, lease.tokens());
            inflightRequests--;
            inflightTokens -= lease.tokens();
            byName.get(lease.request().trafficClass()).inflight--;
            lease.granted().release();
            dispatch(now, fx);
            drain.busy(now, dispatchableWaiting());
        } finally {
            lock.unlock();
        }
        fx.run();
    }

    private Admission admit(ClassQueue q, AdmissionRequest request, long now, Effects fx) {
        if (q.paused(overload.overloaded())) {
            return reject(q, RejectReason.OVERLOAD_PAUSED, estimate.retryAfterPaused(),
                    "class " + q.name() + " is paused while the backend is overloaded", fx);
        }
        String lane = settings.fairShare() ? request.tenant() : "";
        double weight = settings.fairShare() ? tenantWeights.getOrDefault(lane, 1.0) : 1;
        double rate = estimate.availableRate(q, now);
        while (q.fullFor(request.tokens())) {
            Ticket over = q.overShare(lane, request.tokens(), weight);
            if (over == null) {
                long ahead = estimate.tokensAhead(q, lane, request.tokens(), weight);
                return reject(q, RejectReason.QUEUE_FULL, estimate.retryAfter(ahead, rate),
                        "queue of class " + q.name() + " is full (" + q.size() + " requests, " + q.tokens()
                                + " tokens)", fx);
            }
            q.remove(over);
            over.waiting = false;
            long aheadOfOver = estimate.tokensAhead(q, over.lane, over.request().tokens(),
                    tenantWeights.getOrDefault(over.lane, 1.0));
            fx.complete(over.future, reject(q, RejectReason.QUEUE_FULL, estimate.retryAfter(aheadOfOver, rate),
                    "queue of class " + q.name() + " is full and tenant " + over.lane
                            + " holds more than its fair share of it", fx));
        }
        long ahead = estimate.tokensAhead(q, lane, request.tokens(), weight);
        double waitNanos = ahead * 1e9 / rate;
        // An unconfigured prior is a guess: a fresh gateway shedding on it would turn away requests a fast backend
        // takes at once. Until a rate is measured the queue's bounds and its max queue time still hold.
        if ((drain.measured() || settings.shedOnPrior()) && waitNanos > q.maxQueueNanos) {
            return reject(q, RejectReason.WAIT_TOO_LONG, estimate.retryAfter(ahead, rate),
                    "estimated wait " + Math.round(waitNanos / 1e6) + " ms exceeds the " + q.settings.maxQueueTime()
                            .toMillis() + " ms limit of class " + q.name(), fx);
        }
        q.arrivals.arrived(now, request.tokens());
        Ticket ticket = new Ticket(this, q, request, now, arrivals++);
        q.add(ticket, lane, weight);
        dispatch(now, fx);
        if (!ticket.waiting) {
            // Dispatched at once; its future completes too, but nobody holds it.
            return ticket.decision;
        }
        return new Admission.Queued(ticket);
    }

    /** See the class javadoc for the rule. */
    private void dispatch(long now, Effects fx) {
        boolean over = overload.overloaded();
        while (true) {
            ClassQueue q = pick(over);
            if (q == null) {
                return;
            }
            Ticket ticket = q.head();
            Optional<Lease> granted = gate.tryAcquire(ticket.request());
            if (granted.isEmpty()) {
                return;
            }
            if (q.credit >= ClassQueue.UNIT) {
                q.credit -= ClassQueue.UNIT;
            }
            q.dispatch(ticket); // resets the credit if the queue empties
            ticket.waiting = false;
            q.inflight++;
            for (ClassQueue other : queues) {
                // A capped class could not spend the credit: it would bank a burst for when it is released.
                if (other.shareUnits > 0 && !other.isEmpty() && !other.paused(over) && !other.capped(capacity())) {
                    other.credit += other.shareUnits;
                }
            }
            Duration waited = Duration.ofNanos(Math.max(0, now - ticket.enqueuedNanos));
            Admission.Admitted admitted = admitted(q, granted.get(), ticket.request(), waited,
                    over && q.settings.mayDegrade(), fx);
            ticket.decision = admitted;
            fx.complete(ticket.future, admitted);
        }
    }

    /**
     * Counts a request of {@code q} (whose in-flight count the caller raised) in flight on {@code granted}; the
     * listener hears of it after the lock.
     */
    private Admission.Admitted admitted(ClassQueue q, Lease granted, AdmissionRequest request, Duration waited,
                                        boolean degrade, Effects fx) {
        dispatched++;
        inflightRequests++;
        inflightTokens += request.tokens();
        String name = q.name();
        String tenant = request.tenant();
        fx.notify(() -> listener.onDispatched(name, tenant, waited, degrade));
        return new Admission.Admitted(new AdmissionLease(this, granted, request), degrade, waited);
    }

    private ClassQueue pick(boolean over) {
        ClassQueue first = null;
        for (ClassQueue q : queues) {
            if (q.isEmpty() || q.paused(over) || q.capped(capacity())) {
                continue;
            }
            if (q.credit >= ClassQueue.UNIT) {
                return q;
            }
            if (first == null) {
                first = q;
            }
        }
        return first;
    }

    private void expire(long now, Effects fx) {
        for (ClassQueue q : queues) {
            List<Ticket> expired = null;
            for (Iterator<Ticket> it = q.iterator(); it.hasNext(); ) {
                Ticket ticket = it.next();
                if (now - ticket.enqueuedNanos <= q.maxQueueNanos) {
                    break; // oldest first: the rest are younger
                }
                if (expired == null) {
                    expired = new ArrayList<>();
                }
                expired.add(ticket);
            }
            if (expired == null) {
                continue;
            }
            for (Ticket ticket : expired) {
                q.remove(ticket);
                ticket.waiting = false;
            }
            Duration retryAfter = estimate.retryAfter(estimate.tokensAhead(q), estimate.availableRate(q, now));
            for (Ticket ticket : expired) {
                fx.complete(ticket.future, reject(q, RejectReason.QUEUE_TIMEOUT, retryAfter,
                        "waited longer than the " + q.settings.maxQueueTime().toMillis() + " ms limit of class "
                                + q.name(), fx));
            }
        }
    }

    private void evaluateOverload(long now, Effects fx) {
        long age = 0;
        long pending = 0;
        for (ClassQueue q : queues) {
            if (q.settings.pausable() || q.isEmpty()) {
                continue;
            }
            age = Math.max(age, now - q.oldest().enqueuedNanos);
            pending += q.tokens();
        }
        if (overload.evaluate(now, age, pending)) {
            boolean state = overload.overloaded();
            Duration queueAge = Duration.ofNanos(age);
            long tokens = pending;
            fx.notify(() -> listener.onOverloadChanged(state, queueAge, tokens));
        }
    }

    private Admission.Rejected reject(ClassQueue q, RejectReason reason, Duration retryAfter, String message,
                                      Effects fx) {
        rejections.merge(reason, 1L, Long::sum);
        String name = q.name();
        fx.notify(() -> listener.onRejected(name, reason));
        return Admission.rejected(reason, retryAfter, message);
    }

    private int capacity() {
        return Math.max(1, capacity.getAsInt());
    }

    /**
     * After a dispatch, true exactly when the gate refused a head: the pool is saturated. A capped class's
     * backlog does not count, as the pool may have room it is not allowed to use.
     */
    private boolean dispatchableWaiting() {
        boolean over = overload.overloaded();
        for (ClassQueue q : queues) {
            if (!q.isEmpty() && !q.paused(over) && !q.capped(capacity())) {
                return true;
            }
        }
        return false;
    }
}
