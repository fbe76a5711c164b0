package io.cachegate.routing;

import java.util.Locale;

/** How a {@link ReplicaSet} chooses among its healthy replicas with room (the backend's {@code balance:}). */
public enum Balance {
    /** Fewest in-flight tokens (plus any external load signal); ties go to a power-of-two-choices draw. */
    LEAST_LOADED,
    /** The replica most likely to hold the prompt's prefix in its KV cache, until it is saturated. */
    PREFIX_AFFINITY,
    /** Each replica in turn, skipping those that are down or full. */
    ROUND_ROBIN;

    /** The strategy for a YAML name such as {@code least_loaded}; throws naming the accepted values. */
    public static Balance fromName(String name) {
        for (Balance b : values()) {
            if (b.configName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return b;
            }
        }
        throw new IllegalArgumentException("balance must be one of least_loaded, prefix_affinity, round_robin, was '"
                + name + "'");
    }

    /** The YAML spelling: {@code least_loaded}, {@code prefix_affinity}, {@code round_robin}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
