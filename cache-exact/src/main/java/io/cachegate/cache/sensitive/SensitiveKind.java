package io.cachegate.cache.sensitive;

import java.util.Locale;

/** A kind of sensitive data the built-in detector recognises; {@link #tag()} is how logs and docs name it. */
public enum SensitiveKind {
    EMAIL,
    PHONE,
    PAYMENT_CARD,
    IBAN,
    SSN,
    /** A vendor API key or token by its prefix: {@code sk-}, {@code ghp_}, {@code github_pat_}, {@code xoxb-}, ... */
    API_KEY,
    AWS_ACCESS_KEY,
    /** 40 characters of base64 named as an AWS secret access key, or right after an access key id. */
    AWS_SECRET_KEY,
    JWT,
    PRIVATE_KEY;

    /** Lower case, e.g. {@code payment_card}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
