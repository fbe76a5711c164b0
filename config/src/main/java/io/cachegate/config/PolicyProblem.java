package io.cachegate.config;

import java.util.Objects;

/**
 * One thing wrong with a policy file, located by file, 1-based line (0 when the problem concerns the
 * whole file) and YAML path such as {@code routes[2].cache.ttl} (empty for the document itself).
 */
public record PolicyProblem(String file, int line, String path, String message) {

    public PolicyProblem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    /** {@code policy.yaml:12: routes[2].cache.ttl: "ten minutes" is not a duration (e.g. 500ms, 10m, 1h)}. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(file);
        if (line > 0) {
            out.append(':').append(line);
        }
        out.append(": ");
        if (!path.isEmpty()) {
            out.append(path).append(": ");
        }
        return out.append(message).toString();
    }
}
