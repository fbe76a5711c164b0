package io.cachegate.gateway.relay;

import io.cachegate.gateway.dispatch.ServePlan;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.routing.FailureKind;
import io.cachegate.routing.ReplicaLease;
import io.cachegate.routing.RetryDecision;
import io.cachegate.routing.RoutingRequest;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The replicas of its serving backend one relayed request has tried: where the current attempt goes, how many
 * there were, and whether the backend's retry policy sends the next one to another replica. A move to the next
 * hop of the fallback chain starts it afresh.
 */
final class ReplicaAttempts {

    private RoutingRequest routing;
    private URI current;
    private int count;

    /** The plan changed (first plan, or the fallback chain's next hop): no attempt on it yet. */
    void restart(RoutingRequest planned) {
        this.routing = planned;
        this.count = 0;
    }

    /** Counts an attempt on the replica the exchange holds, and returns it. */
    URI next(Exchange x) {
        count++;
        current = x.lease().replica();
        return current;
    }

    /** The replica of the current attempt. */
    URI current() {
        return current;
    }

    /** Attempts so far on the current plan. */
    int count() {
        return count;
    }

    /**
     * The backoff before the next attempt, on another replica that is reserved now, before the failed one is
     * released (so a retry never finds its own freed slot); empty when the policy gives up or no other replica has
     * room.
     */
    Optional<Duration> retryElsewhere(ServePlan plan, FailureKind kind, Exchange x) {
        RetryDecision decision = plan.serving().retry().decide(count, kind, ThreadLocalRandom.current());
        if (!decision.retry()) {
            return Optional.empty();
        }
        RoutingRequest next = routing.excluding(current);
        Optional<ReplicaLease> other = plan.serving().replicas().tryAcquire(next);
        if (other.isEmpty()) {
            return Optional.empty();
        }
        routing = next;
        x.holdLease(other.get()); // releases the failed replica's
        return Optional.of(decision.backoff());
    }
}
