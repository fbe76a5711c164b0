package io.cachegate.cache.exact;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 digests and the length-prefixed framing the key hashes use. */
final class Sha256 {

    private Sha256() {
    }

    // getInstance looks the algorithm up in the providers on every call; keys are made per request.
    private static final ThreadLocal<MessageDigest> DIGESTS = ThreadLocal.withInitial(Sha256::newDigest);

    /** This thread's digest, reset; it must be finished ({@code digest()}) before the next call on the thread. */
    static MessageDigest threadDigest() {
        MessageDigest sha = DIGESTS.get();
        sha.reset();
        return sha;
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
        int n = bytes.length;
        sha.update((byte) (n >>> 24));
        sha.update((byte) (n >>> 16));
        sha.update((byte) (n >>> 8));
        sha.update((byte) n);
        sha.update(bytes);
    }
}
