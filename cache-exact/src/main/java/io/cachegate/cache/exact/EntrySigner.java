package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs the values the Redis store writes with HMAC-SHA256 (the JDK's {@link Mac}) over the Redis key and the
 * encoded entry, appended as the last 32 bytes. The CRC inside an entry only catches damage; the MAC makes an
 * entry planted by anyone who can write to Redis, or copied to another key, a miss. Without a key, values are
 * passed through unsigned (the CRC alone), as before.
 */
public final class EntrySigner {

    /** Bytes of the MAC appended to a signed value. */
    public static final int MAC_BYTES = 32;
    /** HMAC-SHA256 keys shorter than its output weaken it; the policy refuses them. */
    public static final int MIN_KEY_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final EntrySigner NONE = new EntrySigner(null);

    private final SecretKeySpec key;
    // Mac is not thread-safe, and getInstance searches the providers on each call: one per thread.
    private final ThreadLocal<Mac> macs;

    private EntrySigner(SecretKeySpec key) {
        this.key = key;
        this.macs = key == null ? null : ThreadLocal.withInitial(this::newMac);
    }

    /** Values unsigned: the entry's CRC is the only check. */
    public static EntrySigner none() {
        return NONE;
    }

    /** Values signed with {@code key} (at least {@link #MIN_KEY_BYTES} bytes). */
    public static EntrySigner hmacSha256(byte[] key) {
        if (key == null || key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("the signing key must be at least " + MIN_KEY_BYTES + " bytes");
        }
        return new EntrySigner(new SecretKeySpec(key.clone(), ALGORITHM));
    }

    public boolean signs() {
        return key != null;
    }

    /** {@code entry} with its MAC for {@code redisKey} appended; {@code entry} itself when unsigned. */
    public byte[] sign(String redisKey, byte[] entry) {
        if (key == null) {
            return entry;
        }
        byte[] signed = Arrays.copyOf(entry, entry.length + MAC_BYTES);
        byte[] mac = mac(redisKey, entry, entry.length);
        System.arraycopy(mac, 0, signed, entry.length, MAC_BYTES);
        return signed;
    }

    /**
     * The entry bytes of {@code value} read from {@code redisKey}, once its MAC is checked in constant time;
     * {@code value} itself when unsigned. A missing, truncated or wrong MAC throws {@link CorruptEntryException}.
     */
    public byte[] verify(String redisKey, byte[] value) {
        if (key == null) {
            return value;
        }
        if (value == null || value.length <= MAC_BYTES) {
            throw new CorruptEntryException("entry is unsigned or truncated");
        }
        int length = value.length - MAC_BYTES;
        byte[] expected = mac(redisKey, value, length);
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(value, length, value.length))) {
            throw new CorruptEntryException("entry signature does not match (unsigned, tampered, or moved)");
        }
        return Arrays.copyOf(value, length);
    }

    private byte[] mac(String redisKey, byte[] entry, int length) {
        Mac mac = macs.get();
        byte[] keyBytes = redisKey.getBytes(StandardCharsets.UTF_8);
        // Length-prefixed key: no (key, entry) split of the same bytes signs the same.
        mac.update(new byte[] {(byte) (keyBytes.length >>> 24), (byte) (keyBytes.length >>> 16),
                (byte) (keyBytes.length >>> 8), (byte) keyBytes.length});
        mac.update(keyBytes);
        mac.update(entry, 0, length);
        return mac.doFinal();
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime must provide " + ALGORITHM, e);
        }
    }
}
