package io.cachegate.config;

import java.util.Locale;

/**
 * Whether a changed key takes effect on a reload or waits for a restart. A {@link Key} states its rule, or takes
 * the rule of the nearest {@link Section} around it that states one; {@link PolicyReload} derives the reload diff
 * from these rules, and the key reference prints them.
 */
enum ReloadRule {
    /** The next generation is built with the new value. */
    LIVE,
    /**
     * Bound or built once (a listener, a store, a thread pool): a reload reports the change and the next generation
     * keeps the running value.
     */
    RESTART;

    /** {@code live} or {@code restart}, as the key reference writes it. */
    String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
