package io.cachegate.admission;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A queued request's place in line. Its outcome completes exactly once, with {@link Admission.Admitted}
 * or {@link Admission.Rejected}, on the thread that decided it (a release, a tick, a cancel): the
 * gateway hops back to its event loop itself.
 */
public final class Ticket {

    final AdmissionController owner;
    final ClassQueue queue;
    final long enqueuedNanos;
    final CompletableFuture<Admission> future = new CompletableFuture<>();
    private final AdmissionRequest request;
    /** Guarded by the owner's lock. */
    boolean waiting = true;
    /** The admission when dispatched; guarded by the owner's lock. */
    Admission.Admitted decision;
    /** Its place in fair order ({@link TenantQueues}): its lane, virtual start tag and arrival number. */
    String lane;
    double startTag;
    final long sequence;

    Ticket(AdmissionController owner, ClassQueue queue, AdmissionRequest request, long enqueuedNanos, long sequence) {
        this.owner = owner;
        this.sequence = sequence;
        this.queue = queue;
        this.request = request;
        this.enqueuedNanos = enqueuedNanos;
    }

    public AdmissionRequest request() {
        return request;
    }

    /** Completes with the admission decision; a read-only view, so callers cannot complete it. */
    public CompletionStage<Admission> outcome() {
        return future.minimalCompletionStage();
    }

    /**
     * Leaves the queue (the client disconnected), freeing its place and tokens; the outcome completes
     * with {@link RejectReason#CANCELLED}. False when already decided: if that decision was
     * {@link Admission.Admitted}, the caller owns the lease and must release it.
     */
    public boolean cancel() {
        return owner.cancel(this);
    }
}
