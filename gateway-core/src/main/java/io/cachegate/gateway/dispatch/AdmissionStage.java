package io.cachegate.gateway.dispatch;

import io.cachegate.admission.Admission;
import io.cachegate.admission.AdmissionController;
import io.cachegate.admission.AdmissionRequest;
import io.cachegate.admission.RejectReason;
import io.cachegate.admission.Ticket;
import io.cachegate.config.HealthSettings;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.routing.ServeReason;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Admission: plans where a request goes ({@link ServePlanner}; for a kv_aware backend after its prompt is tokenized
 * on the tokenizing threads, resuming on the exchange's loop) and, when the serving backend has admission
 * control, offers it to the backend's class queues: admitted (a replica reserved), queued (it resumes on its
 * event loop when admission decides; a client that leaves takes it out of the queue), or turned away with
 * {@code Retry-After} (429 queue full or wait too long, 503 timed out or paused). Every replica down and no
 * fallback up: 503 at once, with {@code Retry-After} the backend's probe interval (or {@code eject_for}, if shorter).
 */
public final class AdmissionStage implements Stage {

    private final ServePlanner planner;

    public AdmissionStage(ServePlanner planner) {
        this.planner = planner;
    }

    /** A wait in a class queue held the request: its span is the wait. */
    @Override
    public String spanName() {
        return "admission.queue";
    }

    /** Idle capacity is taken at once (a hit gives it back); a queue wait or a refusal waits for the decision. */
    @Override
    public boolean tentative() {
        return true;
    }

    @Override
    public void handle(Exchange x, Next next) {
        String trafficClass = planner.trafficClass(x);
        x.record().trafficClass(trafficClass);
        BackendDispatch primary = planner.primary(x);
        CompletableFuture<int[]> tokens = planner.tokenizeAhead(x, primary);
        if (tokens == null) {
            plan(x, primary, trafficClass, next);
            return;
        }
        tokens.whenComplete((t, error) -> x.resume(() -> {
            if (x.isDone()) {
                return; // the client left meanwhile
            }
            if (t != null) {
                planner.keepTokens(x, primary, t);
            } // a tokenizer failure: prefix affinity decides
            plan(x, primary, trafficClass, next);
        }));
    }

    private void plan(Exchange x, BackendDispatch primary, String trafficClass, Next next) {
        ServePlan plan = planner.plan(x, primary, trafficClass);
        if (!Speculation.pending(x)) {
            offer(x, primary, plan, next);
        } else if (!startedIdle(x, plan, next)) {
            Speculation.afterDecision(x, () -> offer(x, primary, plan, next));
        }
    }

    /** Seconds until a backend with every replica out may take requests again: its next probe or trial. */
    static long retryAfterAllDown(HealthSettings health) {
        return Math.max(1, Math.min(health.interval().toSeconds(), health.ejectFor().toSeconds()));
    }

    private void offer(Exchange x, BackendDispatch primary, ServePlan plan, Next next) {
        if (plan.target().reason() == ServeReason.UNAVAILABLE) {
            // With every replica out, the next passing probe lets one back in (ReplicaSet.recordProbe), at most a
            // probe interval away; a replica's eject_for ending gives it a trial request: come back at the sooner.
            x.record().reason("backend_unavailable");
            if (x.answeredByStandIn("backend_unavailable")) {
                return;
            }
            x.retryLater(ErrorKind.OVERLOADED, "Every replica of backend '" + primary.name()
                    + "' is down and the route has no fallback that is up; try again later",
                    retryAfterAllDown(primary.backend().health()));
            return;
        }
        x.set(ServePlan.KEY, plan);
        if (plan.serving().admission().isEmpty()) {
            next.proceed(x);
            return;
        }
        Admission outcome = plan.serving().admission().get().offer(request(x, plan));
        if (outcome instanceof Admission.Admitted admitted) {
            admit(x, admitted, next);
        } else if (outcome instanceof Admission.Rejected rejected) {
            reject(x, rejected);
        } else {
            await(x, ((Admission.Queued) outcome).ticket(), next);
        }
    }

    /**
     * While a cache lookup still decides whether the request goes upstream at all, it goes now only into idle
     * capacity (nothing queued, not overloaded) and true is returned; otherwise it is offered once the lookup has
     * missed, so a request a cache answers never waits in a queue, takes a queued request's turn or is turned away.
     */
    private static boolean startedIdle(Exchange x, ServePlan plan, Next next) {
        if (plan.target().reason() == ServeReason.UNAVAILABLE) {
            return false;
        }
        Optional<AdmissionController> admission = plan.serving().admission();
        Optional<Admission.Admitted> now = admission.flatMap(a -> a.tryAdmitNow(request(x, plan)));
        if (admission.isPresent() && now.isEmpty()) {
            return false;
        }
        x.set(ServePlan.KEY, plan);
        if (now.isPresent()) {
            admit(x, now.get(), next);
        } else {
            next.proceed(x); // no admission control on this backend
        }
        return true;
    }

    private static AdmissionRequest request(Exchange x, ServePlan plan) {
        return new AdmissionRequest(x.record().trafficClass(), plan.routing().tokenCost(), x.tenant(), plan.routing());
    }

    /** Waits in the queue; admission completes the ticket on whichever thread freed capacity. */
    private void await(Exchange x, Ticket ticket, Next next) {
        long queuedAt = x.ticker().nanos();
        x.onCancel(() -> {
            ticket.cancel(); // the client left while queued: out of the queue
            x.taps().onAbort();
            x.finish(499);
        });
        ticket.outcome().whenComplete((outcome, error) -> x.resume(() -> {
            x.record().queueWaitNanos(x.ticker().nanos() - queuedAt);
            Admission decided = error == null ? outcome : new Admission.Rejected(RejectReason.QUEUE_TIMEOUT,
                    Duration.ofSeconds(1), "Admission control failed to decide; try again");
            if (decided instanceof Admission.Admitted admitted) {
                if (x.isDone()) {
                    admitted.lease().release(); // admitted just as the client left: give the capacity back
                    return;
                }
                x.onCancel(null);
                admit(x, admitted, next);
            } else if (decided instanceof Admission.Rejected rejected && !x.isDone()) {
                x.onCancel(null);
                reject(x, rejected);
            }
        }));
    }

    private static void admit(Exchange x, Admission.Admitted admitted, Next next) {
        x.holdLease(((Backends.ReplicaGateLease) admitted.lease().granted()).replica());
        x.whenFinished(admitted.lease()::release);
        next.proceed(x);
    }

    private static void reject(Exchange x, Admission.Rejected rejected) {
        if (rejected.reason() == RejectReason.CANCELLED) {
            return; // the client left; nobody to answer
        }
        x.record().reason(rejected.reason().name().toLowerCase(java.util.Locale.ROOT));
        x.retryLater(errorKind(rejected.reason()), rejected.message(), rejected.retryAfterSeconds());
    }

    /** The error a rejection becomes; its status is the reason's {@link RejectReason#httpStatus()}. */
    static ErrorKind errorKind(RejectReason reason) {
        return switch (reason) {
            case QUEUE_FULL -> ErrorKind.QUEUE_FULL;
            case WAIT_TOO_LONG -> ErrorKind.QUEUE_WAIT_TOO_LONG;
            case OVERLOAD_PAUSED -> ErrorKind.CLASS_PAUSED;
            case QUEUE_TIMEOUT -> ErrorKind.QUEUE_TIMEOUT;
            case CANCELLED -> throw new IllegalArgumentException("a cancelled request gets no answer");
        };
    }
}
