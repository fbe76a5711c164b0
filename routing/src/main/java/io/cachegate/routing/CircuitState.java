package io.cachegate.routing;

/** The circuit breaker state of one replica. */
public enum CircuitState {
    /** Takes traffic; consecutive failures are counted. */
    CLOSED,
    /** Ejected: no traffic until the cool-down has passed. */
    OPEN,
    /** Cool-down over: exactly one trial request (or a passing probe) decides between CLOSED and OPEN. */
    HALF_OPEN
}
