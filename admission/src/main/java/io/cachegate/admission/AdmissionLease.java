package io.cachegate.admission;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The lease handed to an admitted request: wraps the {@link CapacityGate}'s lease so that releasing
 * it also measures the drain rate and dispatches waiting requests. Release it exactly when the
 * request has finished (success, error or client gone); extra calls are ignored.
 */
public final class AdmissionLease implements Lease {

    private final AdmissionController owner;
    private final Lease granted;
    private final AdmissionRequest request;
    private final AtomicBoolean released = new AtomicBoolean();

    AdmissionLease(AdmissionController owner, Lease granted, AdmissionRequest request) {
        this.owner = owner;
        this.granted = granted;
        this.request = request;
    }

    /** The gate's own lease, for example carrying the chosen replica; do not release it directly. */
    public Lease granted() {
        return granted;
    }

    public AdmissionRequest request() {
        return request;
    }

    @Override
    public long tokens() {
        return request.tokens();
    }

    public boolean isReleased() {
        return released.get();
    }

    @Override
    public void release() {
        if (released.compareAndSet(false, true)) {
            owner.released(this);
        }
    }
}
