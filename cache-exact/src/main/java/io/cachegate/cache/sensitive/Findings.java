package io.cachegate.cache.sensitive;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What a scan found: the built-in kinds and the names of the policy patterns that matched. Never the matched
 * text, so a finding can be logged.
 */
public final class Findings {

    /** Nothing found. */
    public static final Findings NONE = new Findings(EnumSet.noneOf(SensitiveKind.class), List.of());

    private final Set<SensitiveKind> kinds;
    private final List<String> patterns;

    Findings(EnumSet<SensitiveKind> kinds, List<String> patterns) {
        this.kinds = Collections.unmodifiableSet(EnumSet.copyOf(kinds));
        this.patterns = List.copyOf(patterns);
    }

    /** True when anything was found. */
    public boolean any() {
        return !kinds.isEmpty() || !patterns.isEmpty();
    }

    public Set<SensitiveKind> kinds() {
        return kinds;
    }

    /** The names of the policy's patterns that matched, in policy order. */
    public List<String> patterns() {
        return patterns;
    }

    /** The kinds and pattern names, comma-separated ({@code email,employee_id}); "none" when nothing was found. */
    public String describe() {
        if (!any()) {
            return "none";
        }
        List<String> names = new ArrayList<>(kinds.size() + patterns.size());
        kinds.forEach(kind -> names.add(kind.tag()));
        names.addAll(patterns);
        return String.join(",", names);
    }

    @Override
    public String toString() {
        return "Findings[" + describe() + "]";
    }
}
