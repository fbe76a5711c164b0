package io.cachegate.cache.exact;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 digests and the length-prefixed framing the key hashes use. */
final class Sha256 {

    private Sha256() {
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime must provide SHA-256", e);
        }
    }

    /** Feeds a 4-byte big-endian length, then the bytes: no two field tuples frame to the same input. */
    static void field(MessageDigest sha, byte[] bytes) {
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        sha.update(bytes);
    }
}
