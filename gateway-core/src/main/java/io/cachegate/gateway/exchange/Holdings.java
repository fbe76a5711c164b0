package io.cachegate.gateway.exchange;

import io.cachegate.routing.ReplicaLease;
import java.util.ArrayList;
import java.util.List;

/**
 * What an exchange holds until it finishes and then gives back, once: the replica reserved for it, and hooks
 * such as an admission slot's release (run in reverse order of registration).
 */
final class Holdings {

    private ReplicaLease lease;
    private List<Runnable> finishHooks;

    ReplicaLease lease() {
        return lease;
    }

    void holdLease(ReplicaLease reserved) {
        releaseLease();
        this.lease = reserved;
    }

    void releaseLease() {
        if (lease != null) {
            lease.release();
            lease = null;
        }
    }

    void whenFinished(Runnable hook) {
        if (finishHooks == null) {
            finishHooks = new ArrayList<>(2);
        }
        finishHooks.add(hook);
    }

    /** Gives everything back: the lease first, then the hooks, last registered first. */
    void releaseAll() {
        releaseLease();
        for (int i = finishHooks == null ? -1 : finishHooks.size() - 1; i >= 0; i--) {
            finishHooks.get(i).run();
        }
        finishHooks = null;
    }
}
