package io.cachegate.cache.semantic;

import java.util.Collection;
import java.util.Set;

/**
 * Which entries a search may return by their access labels: those whose every label the reader's key holds
 * (unlabelled entries always), or, without access control (no API keys), every entry. The indexes apply it inside
 * the search, so a readable neighbour is never crowded out of the k nearest by unreadable nearer ones.
 */
public final class ReadableLabels {

    private static final ReadableLabels ANY = new ReadableLabels(null);

    private final Set<String> held;

    private ReadableLabels(Set<String> held) {
        this.held = held;
    }

    /** Every entry, whatever its labels: for a gateway without API keys, where nobody holds labels. */
    public static ReadableLabels any() {
        return ANY;
    }

    /** Entries whose labels are all in {@code held}; with none held, unlabelled entries only. */
    public static ReadableLabels holding(Collection<String> held) {
        return new ReadableLabels(Set.copyOf(held));
    }

    /** True when no label is checked. */
    public boolean unrestricted() {
        return held == null;
    }

    /** The labels held; empty when {@link #unrestricted()}. */
    public Set<String> held() {
        return held == null ? Set.of() : held;
    }

    /** True when an entry labelled {@code labels} may be returned. */
    public boolean admits(Set<String> labels) {
        return held == null || held.containsAll(labels);
    }

    @Override
    public String toString() {
        return held == null ? "ReadableLabels[any]" : "ReadableLabels" + held;
    }
}
