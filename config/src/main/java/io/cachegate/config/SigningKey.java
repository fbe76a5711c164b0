package io.cachegate.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The secret that signs Redis entries ({@code cache.exact.signing_key}): its UTF-8 bytes, at least
 * {@link #MIN_BYTES} long. Never printed: {@link #toString()} hides it, so a logged policy does not leak it.
 */
public final class SigningKey {

    /** HMAC-SHA256 is as strong as its 32-byte output only with a key at least that long. */
    public static final int MIN_BYTES = 32;

    private final byte[] bytes;

    private SigningKey(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The key of {@code text}; throws when it is shorter than {@link #MIN_BYTES} bytes. */
    public static SigningKey of(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_BYTES) {
            throw new IllegalArgumentException("is " + bytes.length + " bytes; a signing key needs at least " + MIN_BYTES
                    + " (e.g. openssl rand -base64 48)");
        }
        return new SigningKey(bytes);
    }

    /** A copy of the key's bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SigningKey k && MessageDigest.isEqual(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return bytes.length;
    }

    @Override
    public String toString() {
        return "SigningKey[hidden]";
    }
}
