package io.cachegate.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One API key of a tenant, held only as its SHA-256 digest, with the access labels it carries. A policy
 * writes it as {@code sha256:<64 hex>} (what {@code cachegate hash-key} prints) or, still accepted, as the
 * plain key, which is hashed on reading. Neither form is ever printed: {@link #toString()} shows the labels.
 */
public final class ApiKey {

    /** The prefix of the hashed form in a policy. */
    public static final String SHA256 = "sha256:";

    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{64}");
    private static final HexFormat HEX_FORMAT = HexFormat.of();

    private final byte[] digest;
    private final String hex;
    private final List<String> labels;
    private final boolean hashed;

    private ApiKey(byte[] digest, List<String> labels, boolean hashed) {
        this.digest = digest;
        this.hex = HEX_FORMAT.formatHex(digest);
        this.labels = List.copyOf(labels);
        this.hashed = hashed;
    }

    /** A key as a policy writes it: {@code sha256:<64 hex>} or a plain key; IllegalArgumentException if malformed. */
    public static ApiKey parse(String text, List<String> labels) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(labels, "labels");
        if (text.startsWith(SHA256)) {
            String hex = text.substring(SHA256.length());
            if (!HEX.matcher(hex).matches()) {
                throw new IllegalArgumentException("sha256: must be followed by 64 hex digits (cachegate hash-key prints it)");
            }
            return new ApiKey(HEX_FORMAT.parseHex(hex.toLowerCase(Locale.ROOT)), labels, true);
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException("must not be empty");
        }
        return new ApiKey(digest(text), labels, false);
    }

    /** A key without labels, in either form. */
    public static ApiKey of(String text) {
        return parse(text, List.of());
    }

    /** The form to paste into a policy for this plain key: {@code sha256:<64 lowercase hex>}. */
    public static String hash(String plainKey) {
        return SHA256 + HEX_FORMAT.formatHex(digest(plainKey));
    }

    /** SHA-256 of the key's UTF-8 bytes. */
    static byte[] digest(String plainKey) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(plainKey.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** Whether a presented key's digest is this key's, compared in constant time. */
    boolean matches(byte[] presentedDigest) {
        return MessageDigest.isEqual(digest, presentedDigest);
    }

    /** The digest in lowercase hex: the index entry, never the key itself. */
    String hex() {
        return hex;
    }

    /** The access labels the key holds, in policy order; empty when it holds none. */
    public List<String> labels() {
        return labels;
    }

    /** False when the policy wrote the plain key (it loads, and {@code validate} warns). */
    public boolean hashed() {
        return hashed;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ApiKey key && MessageDigest.isEqual(digest, key.digest) && labels.equals(key.labels);
    }

    @Override
    public int hashCode() {
        return hex.hashCode() * 31 + labels.hashCode();
    }

    @Override
    public String toString() {
        // Neither the key nor its digest: a digest of a short key can be brute-forced from a log.
        return "ApiKey[labels=" + labels + "]";
    }
}
