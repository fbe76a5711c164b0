package io.cachegate.config;

/** Bounds on request JSON, so a hostile body cannot exhaust the parser (depth, string and number length). */
public record JsonLimits(int maxDepth, int maxStringLength, int maxNumberLength) {

    /** Depth 64, strings up to 4 Mi characters, numbers up to 100 digits. */
    public static JsonLimits defaults() {
        return new JsonLimits(64, 4_194_304, 100);
    }
}
