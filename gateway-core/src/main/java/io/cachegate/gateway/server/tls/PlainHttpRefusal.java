package io.cachegate.gateway.server.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Looks at a connection's first bytes on a TLS port: a TLS record passes on to the {@code SslHandler} (and this
 * handler leaves the pipeline); anything else, typically plain HTTP, is answered with a plain-text 400 saying to
 * use https, and closed, rather than dropped without a word (as Netty's {@code NotSslRecordException} would).
 */
final class PlainHttpRefusal extends ByteToMessageDecoder {

    /** A TLS record header: type, version, length. */
    private static final int RECORD_HEADER = 5;
    private static final byte[] ANSWER = answer();

    private boolean refused;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes()); // closing: the rest is not read
            return;
        }
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) {
            ctx.pipeline().remove(this); // hands what it holds to the SslHandler
            return;
        }
        refused = true;
        in.skipBytes(in.readableBytes());
        ctx.writeAndFlush(Unpooled.wrappedBuffer(ANSWER)).addListener(ChannelFutureListener.CLOSE);
    }

    private static byte[] answer() {
        String body = "{\"error\":{\"message\":\"This port speaks HTTPS: send the request with https://.\","
                + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"https_required\"}}";
        return ("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8);
    }
}
