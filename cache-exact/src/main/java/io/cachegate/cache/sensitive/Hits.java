package io.cachegate.cache.sensitive;

/**
 * Where the detectors put what they find: a scan keeps the kinds and stops looking for a kind once it has one; a
 * redaction wants every occurrence, with where it starts and ends.
 */
interface Hits {

    /** Whether finding {@code kind} still matters (a scan that has one already skips the check). */
    boolean wants(SensitiveKind kind);

    /** {@code kind} occupies {@code text[start, end)}. */
    void found(SensitiveKind kind, int start, int end);
}
