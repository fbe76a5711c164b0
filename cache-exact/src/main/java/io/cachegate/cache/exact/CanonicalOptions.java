package io.cachegate.cache.exact;

import io.cachegate.config.Normalize;
import java.util.Objects;

/**
 * Route settings that change the canonical form: how user-authored text is normalised, and whether
 * the request's {@code user} field is part of the key.
 *
 * @param normalize {@link Normalize#NONE} (the default) keeps text byte for byte
 * @param keyOnUser keep {@code user} (and {@code safety_identifier}) in the key, for per-user answers
 */
public record CanonicalOptions(Normalize normalize, boolean keyOnUser) {

    /** No normalisation, {@code user} ignored. */
    public static final CanonicalOptions DEFAULTS = new CanonicalOptions(Normalize.NONE, false);

    public CanonicalOptions {
        Objects.requireNonNull(normalize, "normalize");
    }
}
