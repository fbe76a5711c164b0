package io.cachegate.gateway.server;

import io.cachegate.gateway.exchange.StageChain;
import io.cachegate.gateway.quota.Quotas;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The request path new requests take: the services and stage chain built from the current policy, swapped whole
 * when the policy is reloaded. A request keeps the chain it started with, so requests already admitted finish
 * under the policy they started with while new ones see the new one. Also holds what outlives reloads and the
 * listener reads before a request reaches the chain: the drain flag, the tenants' limits (taken at the head) and
 * the budget of buffered request bodies.
 */
public final class RequestPaths {

    /** One policy's request path. */
    public record Current(long generation, ProxyServices services, StageChain chain) {
    }

    private final AtomicReference<Current> current;
    private final Quotas quotas;
    private final BodyBudget bodies;
    private volatile boolean draining;

    public RequestPaths(Current first, Quotas quotas, BodyBudget bodies) {
        this.current = new AtomicReference<>(first);
        this.quotas = quotas;
        this.bodies = bodies;
    }

    /** The tenants' limits, the same every generation's chain applies. */
    public Quotas quotas() {
        return quotas;
    }

    /** The bytes request bodies hold while they arrive. */
    public BodyBudget bodies() {
        return bodies;
    }

    public Current current() {
        return current.get();
    }

    public void swap(Current next) {
        current.set(next);
    }

    public boolean draining() {
        return draining;
    }

    /** From now on answers carry {@code Connection: close} and readiness fails. */
    public void startDraining() {
        draining = true;
    }
}
