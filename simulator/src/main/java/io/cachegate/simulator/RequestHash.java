package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * SHA-256 of a request's semantic content: object keys sorted, numbers in a canonical form, the
 * transport-only fields ({@code stream}, {@code stream_options}) left out. So a streamed and a
 * non-streamed call, or a direct and a re-serialised proxied one, hash alike.
 */
final class RequestHash {

    private static final Set<String> TRANSPORT_FIELDS = Set.of("stream", "stream_options");

    private final byte[] digest;

    private RequestHash(byte[] digest) {
        this.digest = digest;
    }

    static RequestHash ofRequest(JsonNode body) {
        MessageDigest sha = sha256();
        feed(sha, body, true);
        return new RequestHash(sha.digest());
    }

    static RequestHash of(String salt, JsonNode value) {
        MessageDigest sha = sha256();
        sha.update(salt.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        feed(sha, value, false);
        return new RequestHash(sha.digest());
    }

    /** 32 hex characters, the length of vLLM's random ids. */
    String idHex() {
        return HexFormat.of().formatHex(digest, 0, 16);
    }

    /** A 64-bit seed from the half of the digest the id does not show. */
    long seed() {
        long seed = 0;
        for (int i = 16; i < 24; i++) {
            seed = (seed << 8) | (digest[i] & 0xFF);
        }
        return seed;
    }

    private static void feed(MessageDigest sha, JsonNode node, boolean topLevel) {
        if (node.isObject()) {
            List<String> names = new ArrayList<>();
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!(topLevel && TRANSPORT_FIELDS.contains(name))) {
                    names.add(name);
                }
            }
            names.sort(null);
            sha.update((byte) '{');
            for (String name : names) {
                update(sha, name);
                sha.update((byte) ':');
                feed(sha, node.get(name), false);
            }
            sha.update((byte) '}');
        } else if (node.isArray()) {
            sha.update((byte) '[');
            for (JsonNode element : node) {
                feed(sha, element, false);
                sha.update((byte) ',');
            }
            sha.update((byte) ']');
        } else if (node.isNumber()) {
            // 0, 0.0 and 0e0 are the same temperature.
            sha.update((byte) '#');
            update(sha, node.decimalValue().stripTrailingZeros().toPlainString());
        } else if (node.isTextual()) {
            sha.update((byte) '"');
            update(sha, node.textValue());
        } else {
            update(sha, node.toString()); // true, false, null
        }
    }

    private static void update(MessageDigest sha, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sha.update(intBytes(bytes.length)); // length prefix: no ambiguity between adjacent strings
        sha.update(bytes);
    }

    private static byte[] intBytes(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
