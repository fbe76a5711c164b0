package io.cachegate.config;

/**
 * How prompt text is normalised before the exact cache key is computed. YAML: {@code none},
 * {@code whitespace} (collapse runs of whitespace) or {@code case} (whitespace and lower case).
 */
public enum Normalize {
    NONE,
    WHITESPACE,
    CASE
}
