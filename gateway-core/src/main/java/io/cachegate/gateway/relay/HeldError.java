package io.cachegate.gateway.relay;

import io.cachegate.routing.FallbackResolver;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A 400 from a backend held back until its body shows whether it is a context-length error the next hop of the
 * route's fallback chain may fix. An error answer is small: past {@link #MAX_BYTES} it is relayed as it comes.
 */
final class HeldError {

    static final int MAX_BYTES = 64 * 1024;

    private final HttpResponse head;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(512);

    HeldError(HttpResponse head) {
        this.head = head;
    }

    HttpResponse head() {
        return head;
    }

    /** Copies {@code piece} in; false (nothing copied) when the error would grow too long to act on. */
    boolean add(ByteBuf piece) {
        if (body.size() + piece.readableBytes() > MAX_BYTES) {
            return false;
        }
        int n = piece.readableBytes();
        byte[] bytes = new byte[n];
        piece.getBytes(piece.readerIndex(), bytes);
        body.write(bytes, 0, n);
        return true;
    }

    byte[] body() {
        return body.toByteArray();
    }

    boolean isContextLengthError() {
        return FallbackResolver.isContextLengthError(400, body.toString(StandardCharsets.UTF_8));
    }
}
