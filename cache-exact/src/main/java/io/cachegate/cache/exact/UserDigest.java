package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The end user an entry is written for, as a digest: SHA-256 over a fixed prefix and the request's {@code user}
 * (or, without it, {@code safety_identifier}) field. Entries record the digest, never the raw id, and a purge by
 * user digests the id it is given the same way.
 */
public final class UserDigest {

    /** The digest of "no end user". */
    public static final String NONE = "";
    private static final byte[] DOMAIN = "cachegate-user-v1".getBytes(StandardCharsets.UTF_8);

    private UserDigest() {
    }

    /** 64 lowercase hex characters for a non-empty {@code user}; {@link #NONE} for null or empty. */
    public static String of(String user) {
        if (user == null || user.isEmpty()) {
            return NONE;
        }
        MessageDigest sha = Sha256.threadDigest();
        Sha256.field(sha, DOMAIN);
        Sha256.field(sha, user.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The digest of the end user a request body names ({@link CanonicalRequest#USER_FIELDS}, first present wins). */
    public static String ofRequest(JsonNode body) {
        for (String field : CanonicalRequest.USER_FIELDS) {
            JsonNode value = body.get(field);
            if (value != null && value.isTextual() && !value.asText().isEmpty()) {
                return of(value.asText());
            }
        }
        return NONE;
    }
}
