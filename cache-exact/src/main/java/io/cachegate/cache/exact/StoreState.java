package io.cachegate.cache.exact;

import java.util.Locale;

/** Where a remote store stands in its health decision (see {@link StoreHealth}). */
public enum StoreState {
    /** Operations go to the store: too few of its recent ones failed or were slow to say otherwise. */
    HEALTHY,
    /** Operations fail fast without reaching the store (a miss for the caller) until it is probed. */
    DEGRADED,
    /** A few operations reach the store to find out whether it is healthy again; the rest fail fast. */
    PROBING;

    /** The lower-case name, as metrics and logs write it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
