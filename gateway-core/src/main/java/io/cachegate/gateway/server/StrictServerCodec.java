package io.cachegate.gateway.server;

import io.cachegate.gateway.exchange.HeaderBlock;
import io.cachegate.gateway.exchange.TemplatedHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Netty's {@code HttpServerCodec} with two more refusals: a header continuation line (obs-fold, a line starting with
 * a space or tab), which Netty's decoder joins silently to the previous header while another hop may read it as a
 * header of its own, and a request line Netty reads leniently (runs of spaces or tabs, lower-case or other versions,
 * a missing version: another hop could read them differently; {@link HeadSyntax#requestLine} is the strict form).
 * Such a request is marked as a decoder failure, so the {@link FrontDoor} refuses it. Like
 * {@code HttpServerCodec}, the encoder remembers each request's method, so that the answer to a HEAD has no body.
 */
final class StrictServerCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

    private static final int CRLF = ('\r' << 8) | '\n';

    /** The methods of requests not answered yet, in order; bounded by what the pipeline holds per connection. */
    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>();

    StrictServerCodec(HttpDecoderConfig config) {
        init(new Decoder(config), new Encoder());
    }

    private final class Decoder extends HttpRequestDecoder {

        /** True while the bytes the decoder consumes are a request line and headers. */
        private boolean inHead = true;
        private final HeadScan head = new HeadScan();

        Decoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int start = buffer.readerIndex();
            int before = out.size();
            super.decode(ctx, buffer, out);
            // The decoder returns right after the call that completes the head, so these bytes are head bytes only.
            if (inHead) {
                head.scan(buffer, start, buffer.readerIndex());
            }
            for (int i = before; i < out.size(); i++) {
                Object msg = out.get(i);
                if (msg instanceof HttpRequest request) {
                    methods.add(request.method());
                    if (head.folded() && request.decoderResult().isSuccess()) {
                        request.setDecoderResult(DecoderResult.failure(
                                new IllegalArgumentException("obs-fold header continuation line")));
                    }
                    if (request.decoderResult().isSuccess() && !HeadSyntax.requestLine(head.requestLine())) {
                        request.setDecoderResult(DecoderResult.failure(
                                new IllegalArgumentException("request line is not method SP target SP HTTP/1.x")));
                    }
                    inHead = false;
                    head.reset();
                }
                if (msg instanceof LastHttpContent) {
                    inHead = true;
                }
            }
        }
    }

    /**
     * Netty's response encoder, but a whole answer (a hit, an error) leaves as one buffer, head and body together:
     * one write and one buffer to the socket, where Netty's encoder writes the head and the body as two and joins
     * their promises; a stored answer's shared headers ({@link TemplatedHeaders}) are copied as the bytes they were
     * encoded to once. Streamed answers (a head, then pieces) go through Netty's encoding unchanged.
     */
    private final class Encoder extends HttpResponseEncoder {

        /** Room for the status line and the blank line after the headers. */
        private static final int LINE_ROOM = 64;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof FullHttpResponse whole && whole.status().codeClass() != HttpStatusClass.INFORMATIONAL
                    && whole.trailingHeaders().isEmpty()
                    && !HttpUtil.isTransferEncodingChunked(whole)) {
                ctx.write(encodeWhole(ctx, whole), promise);
                return;
            }
            super.write(ctx, msg, promise);
        }

        /** The answer in one buffer sized for it; the message is released. As Netty does: no body for a HEAD. */
        private ByteBuf encodeWhole(ChannelHandlerContext ctx, FullHttpResponse whole) throws Exception {
            try {
                boolean empty = isContentAlwaysEmpty(whole); // once per answer: it takes the request's method
                sanitizeHeadersBeforeEncode(whole, empty);
                ByteBuf content = whole.content();
                // A stored answer's shared headers are bytes already: only its own are encoded here.
                HeaderBlock block = null;
                HttpHeaders headers = whole.headers();
                if (headers instanceof TemplatedHeaders templated && templated.block() != null) {
                    block = templated.block();
                    headers = templated.own();
                }
                int size = LINE_ROOM + (empty ? 0 : content.readableBytes()) + (block == null ? 0 : block.encoded().length);
                for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
                    Map.Entry<CharSequence, CharSequence> header = it.next();
                    size += header.getKey().length() + header.getValue().length() + 4; // ": " and CRLF
                }
                ByteBuf out = ctx.alloc().ioBuffer(size);
                try {
                    encodeInitialLine(out, whole);
                    if (block != null) {
                        out.writeBytes(block.encoded());
                    }
                    encodeHeaders(headers, out);
                    out.writeShort(CRLF);
                    if (!empty) {
                        out.writeBytes(content, content.readerIndex(), content.readableBytes());
                    }
                    return out;
                } catch (Exception | Error e) {
                    out.release();
                    throw e;
                }
            } finally {
                whole.release();
            }
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            if (msg.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                return super.isContentAlwaysEmpty(msg); // 100 Continue: the request's answer is still to come
            }
            HttpMethod method = methods.poll();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }
    }
}
