package io.cachegate.config;

/** Bounds on request JSON, so a hostile body cannot exhaust the parser (depth, string and number length). */
public record JsonLimits(int maxDepth, int maxStringLength, int maxNumberLength) {

    /** Every key of {@code server.json} at its default (see {@code ServerKeys}). */
    public static JsonLimits defaults() {
        return new JsonLimits(ServerKeys.MAX_DEPTH.fallback(), ServerKeys.MAX_STRING_LENGTH.fallback(),
                ServerKeys.MAX_NUMBER_LENGTH.fallback());
    }
}
