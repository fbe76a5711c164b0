package io.cachegate.routing;

import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reserved slot on one replica: one request and its token cost, held from acquisition until
 * {@link #release()} (when the upstream exchange ends, however it ends), and with kv_aware its uncached prompt tokens
 * in the replica's prefill backlog until {@link #answerBegun()}. Record the outcome with
 * {@link ReplicaSet#recordSuccess}/{@link ReplicaSet#recordFailure} before releasing: releasing a
 * half-open trial without an outcome lets another request be the trial.
 */
public final class ReplicaLease {

    private final ReplicaSet set;
    private final Replica replica;
    private final long tokens;
    private final long id;
    private final boolean trial;
    /** Tokens counted in the replica's prefill backlog until the answer begins ({@link #answerBegun()}). */
    private final long prefillTokens;
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicBoolean prefilled = new AtomicBoolean();

    ReplicaLease(ReplicaSet set, Replica replica, long tokens, long prefillTokens, long id, boolean trial) {
        this.set = set;
        this.replica = replica;
        this.tokens = tokens;
        this.prefillTokens = prefillTokens;
        this.id = id;
        this.trial = trial;
    }

    /** The replica's base URL. */
    public URI replica() {
        return replica.uri;
    }

    /** The token cost reserved. */
    public long tokens() {
        return tokens;
    }

    /** True when this request is the single trial of a half-open replica. */
    public boolean trial() {
        return trial;
    }

    /**
     * The replica's answer began (its head, which vLLM sends with the first token): the prompt is prefilled, so it
     * leaves the replica's prefill backlog. Only the first call counts; {@link #release()} implies it.
     */
    public void answerBegun() {
        if (takePrefill()) {
            set.prefilled(this);
        }
    }

    /** Frees the slot; only the first call counts. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            set.release(this);
        }
    }

    public boolean released() {
        return released.get();
    }

    /** True once: whoever takes it removes {@link #prefillTokens()} from the replica's backlog. */
    boolean takePrefill() {
        return prefillTokens > 0 && prefilled.compareAndSet(false, true);
    }

    long prefillTokens() {
        return prefillTokens;
    }

    Replica replicaState() {
        return replica;
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "ReplicaLease[" + replica.uri + ", tokens=" + tokens + (trial ? ", trial" : "") + "]";
    }
}
