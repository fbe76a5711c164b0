package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Collection;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The part of the key for what beyond the request decides the answer: the client's
 * {@code X-Cache-Context} header and the route's {@code cache.context}. Two requests with the same
 * text but a different context never share an entry.
 */
public final class ContextHash {

    /** The context hash when neither the header nor the route gives a context. */
    public static final String NONE = "none";

    private ContextHash() {
    }

    /**
     * SHA-256 (lowercase hex) over both values, each with a presence flag and a length prefix, so
     * header "a" with route "bc" differs from "ab" with "c", and a header differs from the same route
     * value; {@link #NONE} when both are absent.
     */
    public static String of(Optional<String> clientHeader, Optional<String> routeContext) {
        if (clientHeader.isEmpty() && routeContext.isEmpty()) {
            return NONE;
        }
        MessageDigest sha = Sha256.threadDigest();
        field(sha, clientHeader);
        field(sha, routeContext);
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * {@code context} scoped to the access labels a request declared: requests declaring different label sets
     * never share an exact entry or an answer in flight, so a reader who may not see a labelled entry never
     * overwrites it either. No labels: {@code context} unchanged, so unlabelled keys stay what they were.
     */
    public static String withLabels(String context, Collection<String> labels) {
        if (labels.isEmpty()) {
            return context;
        }
        MessageDigest sha = Sha256.threadDigest();
        Sha256.field(sha, context.getBytes(StandardCharsets.UTF_8));
        for (String label : new TreeSet<>(labels)) {
            Sha256.field(sha, label.getBytes(StandardCharsets.UTF_8));
        }
        return "labels-" + HexFormat.of().formatHex(sha.digest());
    }

    private static void field(MessageDigest sha, Optional<String> value) {
        sha.update((byte) (value.isPresent() ? 1 : 0));
        Sha256.field(sha, value.orElse("").getBytes(StandardCharsets.UTF_8));
    }
}
