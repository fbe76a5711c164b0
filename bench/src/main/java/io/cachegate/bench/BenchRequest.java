package io.cachegate.bench;

import java.util.Objects;

/**
 * One request to send, with its body already encoded so the hot path only wraps bytes. The body
 * array is shared, not copied: it must not be modified after the request is built.
 *
 * @param method HTTP method, e.g. {@code POST}
 * @param path path and query, starting with {@code /}, relative to the target URL's path
 * @param body encoded JSON body, or an empty array for none
 * @param streaming whether the request asks for an SSE stream ({@code "stream": true})
 */
public record BenchRequest(String method, String path, byte[] body, boolean streaming) {

    private static final byte[] NO_BODY = new byte[0];

    public BenchRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with '/' (was \"" + path + "\")");
        }
        body = body == null ? NO_BODY : body;
    }

    /** A {@code POST} of a JSON body. */
    public static BenchRequest post(String path, byte[] body, boolean streaming) {
        return new BenchRequest("POST", path, body, streaming);
    }

    @Override
    public String toString() {
        return "BenchRequest[" + method + " " + path + ", " + body.length + " body bytes"
                + (streaming ? ", streaming]" : "]");
    }
}
