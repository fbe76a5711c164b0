package io.cachegate.gateway.dispatch;

import io.cachegate.admission.Admission;
import io.cachegate.admission.RejectReason;
import io.cachegate.admission.Ticket;
import io.cachegate.gateway.proxy.ActiveExchange;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A request waiting in an admission queue. Admission completes its ticket on whichever thread freed capacity;
 * the outcome is carried back to the client's event loop, where the exchange starts or the rejection is
 * written. A client that leaves while queued takes its request out of the queue.
 */
final class QueuedDispatch implements ActiveExchange {

    private final DispatchRequest d;
    private final Ticket ticket;
    private final Function<Admission.Admitted, ActiveExchange> onAdmitted;
    private final Consumer<Admission.Rejected> onRejected;
    private ActiveExchange started;
    private boolean cancelled;

    QueuedDispatch(DispatchRequest d, Ticket ticket, Function<Admission.Admitted, ActiveExchange> onAdmitted,
                   Consumer<Admission.Rejected> onRejected) {
        this.d = d;
        this.ticket = ticket;
        this.onAdmitted = onAdmitted;
        this.onRejected = onRejected;
    }

    QueuedDispatch await() {
        d.onStarted().accept(this);
        ticket.outcome().whenComplete((outcome, error) -> d.ctx().executor().execute(() -> decided(error == null
                ? outcome : new Admission.Rejected(RejectReason.QUEUE_TIMEOUT, Duration.ofSeconds(1),
                        "Admission control failed to decide; try again"))));
        return this;
    }

    private void decided(Admission outcome) {
        if (outcome instanceof Admission.Admitted admitted) {
            if (cancelled) {
                admitted.lease().release(); // admitted just as the client left: give the capacity back
            } else {
                started = onAdmitted.apply(admitted);
            }
        } else if (outcome instanceof Admission.Rejected rejected && !cancelled) {
            onRejected.accept(rejected);
        }
    }

    @Override
    public void cancel() {
        if (started != null) {
            started.cancel();
            return;
        }
        if (cancelled) {
            return;
        }
        cancelled = true;
        ticket.cancel();
        d.tap().onAbort();
        d.request().release();
        d.onDone().run();
    }
}
