package io.cachegate.config;

/**
 * What a route does with a request (or an answer) that holds personal data or a secret. YAML: {@code no_store}
 * (neither read nor written: a BYPASS), {@code private} (cached for the same end user only, never matched by
 * meaning) or {@code allow} (cached as any other request, but never in the semantic index).
 */
public enum SensitiveMode {
    NO_STORE,
    PRIVATE,
    ALLOW
}
