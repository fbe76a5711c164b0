package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.gateway.exchange.HeaderBlock;
import io.cachegate.gateway.exchange.TemplatedHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StrictServerCodecTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(new StrictServerCodec(new HttpDecoderConfig()));

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void decode_obsFold_marksTheRequestAsFailed() {
        List<HttpRequest> requests = decode("POST /v1/x HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\nContent-Length: 0\r\n\r\n");
        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).decoderResult().isFailure()).isTrue();
    }

    @Test
    void decode_obsFoldWithTabSplitAcrossWrites_marksTheRequestAsFailed() {
        List<HttpRequest> requests = decode("POST /v1/x HTTP/1.1\r\nHost: a\r\nX-A: b\r\n", "\tc\r\nContent-Length: 0\r\n\r\n");
        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).decoderResult().isFailure()).isTrue();
    }

    @Test
    void decode_spacesAfterLineEndsInBodies_areNotFolds() {
        String json = "{\r\n  \"a\": 1\r\n}";
        String chunk = "{\n \"b\": 2}";
        List<HttpRequest> requests = decode(
                "\r\nPOST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: " + json.length() + "\r\n\r\n" + json,
                "POST /v1/y HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n0\r\n\r\n",
                "GET /v1/z HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(requests).hasSize(3);
        assertThat(requests).allSatisfy(r -> assertThat(r.decoderResult().isSuccess()).as(r.uri()).isTrue());
    }

    @Test
    void encode_answerToHead_hasNoBody() {
        decode("HEAD /v1/models HTTP/1.1\r\nHost: a\r\n\r\n", "GET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n");
        String head = encode("{\"x\":1}");
        String get = encode("{\"x\":1}");
        assertThat(head).startsWith("HTTP/1.1 200").contains("content-length: 7").doesNotContain("{\"x\":1}");
        assertThat(get).endsWith("{\"x\":1}");
    }

    @Test
    void encode_wholeAnswer_isOneBuffer_withNettysBytes() {
        decode("GET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n");
        String body = "{\"id\":\"chatcmpl-1\",\"choices\":[]}".repeat(30); // past the head buffer's first size
        channel.writeOutbound(answer(HttpResponseStatus.OK, body));

        ByteBuf only = channel.readOutbound();
        assertThat(channel.outboundMessages()).as("one buffer").isEmpty();
        EmbeddedChannel netty = new EmbeddedChannel(new HttpResponseEncoder());
        netty.writeOutbound(answer(HttpResponseStatus.OK, body));
        StringBuilder expected = new StringBuilder();
        for (ByteBuf part; (part = netty.readOutbound()) != null; part.release()) {
            expected.append(part.toString(StandardCharsets.ISO_8859_1));
        }
        netty.finishAndReleaseAll();
        assertThat(only.toString(StandardCharsets.ISO_8859_1)).isEqualTo(expected.toString())
                .startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n" + body);
        only.release();
    }

    @Test
    void encode_sharedHeaderBlock_isCopied_andTheBytesAreNettysForTheSameHeaders() {
        decode("POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
        String body = "{\"id\":\"chatcmpl-1\"}";
        HeaderBlock block = HeaderBlock.of(Map.of(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length())));
        TemplatedHeaders templated = new TemplatedHeaders(block, new DefaultHttpHeaders());
        templated.set("x-a", "b");
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), templated, new DefaultHttpHeaders()));
        ByteBuf only = channel.readOutbound();
        assertThat(templated.block()).as("encoding did not copy the block in").isSameAs(block);
        EmbeddedChannel netty = new EmbeddedChannel(new HttpResponseEncoder());
        DefaultFullHttpResponse plain = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        plain.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length()).set("x-a", "b");
        netty.writeOutbound(plain);
        StringBuilder expected = new StringBuilder();
        for (ByteBuf part; (part = netty.readOutbound()) != null; part.release()) {
            expected.append(part.toString(StandardCharsets.ISO_8859_1));
        }
        netty.finishAndReleaseAll();
        assertThat(only.toString(StandardCharsets.ISO_8859_1)).isEqualTo(expected.toString());
        only.release();
    }

    @Test
    void encode_sharedHeaderBlock_answerToHead_hasNoBody() {
        decode("HEAD /v1/models HTTP/1.1\r\nHost: a\r\n\r\n");
        HeaderBlock block = HeaderBlock.of(Map.of(HttpHeaderNames.CONTENT_LENGTH, "7"));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer("{\"x\":1}", StandardCharsets.UTF_8),
                new TemplatedHeaders(block, new DefaultHttpHeaders()), new DefaultHttpHeaders()));
        ByteBuf only = channel.readOutbound();
        assertThat(only.toString(StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n");
        only.release();
    }

    @Test
    void encode_noContent_dropsTheLength_asNettyDoes() {
        decode("POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
        channel.writeOutbound(answer(HttpResponseStatus.NO_CONTENT, ""));
        ByteBuf only = channel.readOutbound();
        assertThat(only.toString(StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 204 No Content\r\nx-a: b\r\n\r\n");
        only.release();
    }

    @Test
    void encode_streamedAnswer_isNettysChunks() {
        decode("GET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n");
        DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpUtil.setTransferEncodingChunked(head, true);
        channel.writeOutbound(head, new DefaultHttpContent(Unpooled.copiedBuffer("data: 1\n\n", StandardCharsets.UTF_8)),
                LastHttpContent.EMPTY_LAST_CONTENT);
        StringBuilder out = new StringBuilder();
        for (ByteBuf part; (part = channel.readOutbound()) != null; part.release()) {
            out.append(part.toString(StandardCharsets.ISO_8859_1));
        }
        assertThat(out.toString()).isEqualTo("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                + "9\r\ndata: 1\n\n\r\n0\r\n\r\n");
    }

    private static DefaultFullHttpResponse answer(HttpResponseStatus status, String body) {
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().set("x-a", "b").setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
        return response;
    }

    private List<HttpRequest> decode(String... writes) {
        List<HttpRequest> requests = new ArrayList<>();
        for (String write : writes) {
            channel.writeInbound(Unpooled.copiedBuffer(write, StandardCharsets.ISO_8859_1));
            Object msg;
            while ((msg = channel.readInbound()) != null) {
                if (msg instanceof HttpRequest request) {
                    requests.add(request);
                }
                if (msg instanceof HttpContent) {
                    ReferenceCountUtil.release(msg);
                }
            }
        }
        return requests;
    }

    private String encode(String body) {
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
        channel.writeOutbound(response);
        StringBuilder out = new StringBuilder();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null) {
            out.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return out.toString();
    }
}
