package io.cachegate.gateway.server;

import io.cachegate.gateway.exchange.StageChain;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The request path new requests take: the services and stage chain built from the current policy, swapped whole
 * when the policy is reloaded. A request keeps the chain it started with, so requests already admitted finish
 * under the policy they started with while new ones see the new one. Also holds the drain flag, which outlives
 * reloads.
 */
public final class RequestPaths {

    /** One policy's request path. */
    public record Current(long generation, ProxyServices services, StageChain chain) {
    }

    private final AtomicReference<Current> current;
    private volatile boolean draining;

    public RequestPaths(Current first) {
        this.current = new AtomicReference<>(first);
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
