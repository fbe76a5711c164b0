package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An armed connection's next successful answer leaves with the rewriter's body; errors pass as they are. */
class AnswerRewriteTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(AnswerRewrite.INSTANCE, new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().lastContext();

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private static AnswerRewrite.Rewriter rewriter(String body) {
        return new AnswerRewrite.Rewriter() {
            @Override
            public CompletableFuture<byte[]> body() {
                return CompletableFuture.completedFuture(body == null ? null : body.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public String failure() {
                return "could not merge";
            }
        };
    }

    private static HttpResponse head(HttpResponseStatus status) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        head.headers().set("x-request-id", "r1");
        HttpUtil.setTransferEncodingChunked(head, true);
        return head;
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static String body(Object content) {
        HttpContent c = (HttpContent) content;
        try {
            return c.content().toString(StandardCharsets.UTF_8);
        } finally {
            c.release();
        }
    }

    @Test
    void write_armed_holdsTheHeadDropsTheBodyAndWritesTheNewOne() {
        AnswerRewrite.arm(ctx, rewriter("{\"merged\":true}"));
        ChannelFuture head = ctx.writeAndFlush(head(HttpResponseStatus.OK));
        ByteBuf piece = text("{\"backend\":");
        ChannelFuture middle = ctx.writeAndFlush(new DefaultHttpContent(piece));

        assertThat(head.isSuccess()).as("held, but done for the relay, which reads on").isTrue();
        assertThat(middle.isSuccess()).isTrue();
        assertThat(piece.refCnt()).as("dropped and released").isZero();
        Object nothing = channel.readOutbound();
        assertThat(nothing).as("nothing leaves before the end").isNull();

        ChannelFuture last = ctx.writeAndFlush(new DefaultLastHttpContent(text("1}")));

        HttpResponse written = channel.readOutbound();
        assertThat(written.status()).isEqualTo(HttpResponseStatus.OK);
        assertThat(written.headers().get("x-request-id")).isEqualTo("r1");
        assertThat(HttpUtil.isTransferEncodingChunked(written)).isFalse();
        assertThat(written.headers().getInt("content-length")).isEqualTo(15);
        Object content = channel.readOutbound();
        assertThat(content).isInstanceOf(LastHttpContent.class);
        assertThat(body(content)).isEqualTo("{\"merged\":true}");
        assertThat(last.isSuccess()).isTrue();

        ctx.writeAndFlush(head(HttpResponseStatus.OK));
        Object next = channel.readOutbound();
        assertThat(next).as("the next answer is not rewritten").isInstanceOf(HttpResponse.class);
    }

    @Test
    void write_bodyMadeLater_holdsTheNextAnswerBehindIt() {
        CompletableFuture<byte[]> later = new CompletableFuture<>();
        AnswerRewrite.arm(ctx, new AnswerRewrite.Rewriter() {
            @Override
            public CompletableFuture<byte[]> body() {
                return later;
            }

            @Override
            public String failure() {
                return "unused";
            }
        });
        ctx.write(head(HttpResponseStatus.OK));
        ChannelFuture last = ctx.writeAndFlush(new DefaultLastHttpContent(text("{}")));
        // A pipelined request's answer, written while the body is still being made.
        ChannelFuture next = ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.OK, text("next")));
        Object early = channel.readOutbound();
        assertThat(early).isNull();
        assertThat(last.isDone()).isFalse();
        assertThat(next.isDone()).isFalse();

        later.complete("{\"merged\":1}".getBytes(StandardCharsets.UTF_8));
        channel.runPendingTasks();

        assertThat(((HttpResponse) channel.readOutbound()).headers().getInt("content-length")).isEqualTo(12);
        assertThat(body(channel.readOutbound())).isEqualTo("{\"merged\":1}");
        assertThat(body(channel.readOutbound())).as("then the next answer, in order").isEqualTo("next");
        assertThat(last.isSuccess()).isTrue();
        assertThat(next.isSuccess()).isTrue();
    }

    @Test
    void write_rewriterWithoutBody_answers502() {
        AnswerRewrite.arm(ctx, rewriter(null));
        ctx.write(head(HttpResponseStatus.OK));
        ctx.writeAndFlush(new DefaultLastHttpContent(text("{}")));

        HttpResponse written = channel.readOutbound();
        assertThat(written.status().code()).isEqualTo(502);
        assertThat(body(channel.readOutbound())).contains("could not merge").contains("upstream_bad_response");
    }

    @Test
    void write_errorAnswer_passesUnchangedAndDisarms() {
        AnswerRewrite.arm(ctx, rewriter("{\"merged\":true}"));
        ctx.write(head(HttpResponseStatus.BAD_REQUEST));
        ctx.writeAndFlush(new DefaultLastHttpContent(text("{\"error\":{}}")));

        assertThat(((HttpResponse) channel.readOutbound()).status().code()).isEqualTo(400);
        assertThat(body(channel.readOutbound())).isEqualTo("{\"error\":{}}");
    }

    @Test
    void write_fullAnswerOrDisarmed_passesUnchanged() {
        AnswerRewrite.Rewriter r = rewriter("{\"merged\":true}");
        AnswerRewrite.arm(ctx, r);
        AnswerRewrite.disarm(ctx, rewriter("other"));
        AnswerRewrite.disarm(ctx, r);
        ctx.write(head(HttpResponseStatus.OK));
        ctx.writeAndFlush(new DefaultLastHttpContent(text("as sent")));
        Object unchanged = channel.readOutbound();
        assertThat(unchanged).isInstanceOf(HttpResponse.class);
        assertThat(body(channel.readOutbound())).isEqualTo("as sent");

        AnswerRewrite.arm(ctx, r);
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.OK, text("a hit")));
        FullHttpResponse hit = channel.readOutbound();
        assertThat(body(hit)).isEqualTo("a hit");
    }
}
