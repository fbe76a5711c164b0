package io.cachegate.routing;

import java.net.URI;

/**
 * Told when a replica's circuit changes state, for logs and metrics. Called on the thread that
 * caused the change, after the set's lock is released; it must be quick and must not throw.
 */
@FunctionalInterface
public interface ReplicaStateListener {

    /** A listener that ignores every change. */
    ReplicaStateListener NONE = (backend, replica, from, to) -> { };

    void stateChanged(String backend, URI replica, CircuitState from, CircuitState to);
}
