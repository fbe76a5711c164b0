package io.cachegate.gateway.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * HTTP/2 by prior knowledge (RFC 9113 3.3): a connection that opens with the HTTP/2 preface becomes HTTP/2 at once;
 * on any other first bytes this handler leaves and HTTP/1.1 goes on as before. It holds at most the preface's 24
 * bytes, and only while they match it; the header timeout, started by the first byte, bounds the wait.
 */
final class PriorKnowledge extends ByteToMessageDecoder {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Http2Switch http2;

    PriorKnowledge(Http2Switch http2) {
        this.http2 = http2;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.length);
        for (int i = 0; i < n; i++) {
            if (in.getByte(in.readerIndex() + i) != PREFACE[i]) {
                ctx.pipeline().remove(this); // not HTTP/2: the bytes held go on to the HTTP/1.1 codec
                return;
            }
        }
        if (n == PREFACE.length) {
            http2.install(ctx);
            ctx.pipeline().remove(this); // the preface and what follows go on to the HTTP/2 codec
        }
    }
}
