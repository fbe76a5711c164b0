package io.cachegate.gateway.dispatch;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.routing.ReplicaLease;
import java.util.Optional;

/**
 * Replica choice: reserves a replica of the serving backend (least-loaded, prefix affinity or round robin, as the
 * backend says) unless admission control reserved one already. Every replica down answers 503 at once: no
 * connect timeout is spent on a replica known to be down.
 */
public final class ReplicaChoiceStage implements Stage {

    @Override
    public String spanName() {
        return "replica.choice";
    }

    /** A replica's lease is given back by a hit; only the 503 of every replica down waits for the decision. */
    @Override
    public boolean tentative() {
        return true;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (x.lease() == null && Speculation.pending(x)) {
            // A cache lookup still decides: the 503 of every replica down waits for it (a hit answers instead).
            ServePlan plan = x.get(ServePlan.KEY);
            Optional<ReplicaLease> lease = plan.serving().replicas().tryAcquire(plan.routing());
            if (lease.isEmpty()) {
                Speculation.afterDecision(x, () -> handle(x, next));
                return;
            }
            x.holdLease(lease.get());
        }
        if (x.lease() == null && !acquire(x, x.get(ServePlan.KEY))) {
            return;
        }
        next.proceed(x);
    }

    /**
     * Reserves a replica of {@code plan}'s backend for {@code x}; false (and the exchange answered) when every
     * replica is down. Down, not full: without admission control replicas have no request bound, and with it the
     * lease comes reserved.
     */
    public static boolean acquire(Exchange x, ServePlan plan) {
        Optional<ReplicaLease> lease = plan.serving().replicas().tryAcquire(plan.routing());
        if (lease.isEmpty()) {
            x.record().reason("no_replica");
            if (x.answeredByStandIn("backend_unavailable")) {
                return false;
            }
            x.fail(ErrorKind.OVERLOADED, "Every replica of backend '" + plan.serving().name()
                    + "' is down; try again later", null);
            return false;
        }
        x.holdLease(lease.get());
        return true;
    }
}
