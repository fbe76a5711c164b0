package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The load generator over HTTP/2 (h2c by prior knowledge): every request on a stream of its own, answers counted. */
class Http2LoadIT {

    @Test
    void run_http2_answersEveryRequest_aStreamEach_onFewConnections() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        AtomicInteger connections = new AtomicInteger();
        AtomicInteger streams = new AtomicInteger();
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.incrementAndGet();
                            ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                    new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
                                        @Override
                                        protected void initChannel(Channel stream) {
                                            streams.incrementAndGet();
                                            stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                                                    new HttpObjectAggregator(1 << 16), new Answer());
                                        }
                                    }));
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            BenchRequest request = BenchRequest.post("/v1/chat/completions",
                    "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8), false);

            BenchReport report = LoadGenerator.run(BenchOptions.builder(URI.create("http://127.0.0.1:" + port),
                            RequestSources.constant(request)).closedLoop(2).warmup(Duration.ofSeconds(1))
                    .duration(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).http2(true).build());
            server.close().sync();

            assertThat(report.errors()).as("errors %s", report.errorsByKind()).isZero();
            assertThat(report.statusCounts()).containsOnlyKeys(200);
            assertThat(report.requests()).isGreaterThan(10);
            assertThat(connections.get()).isLessThanOrEqualTo(2);
            assertThat(streams.get()).isGreaterThanOrEqualTo((int) report.requests());
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer("{}".getBytes(StandardCharsets.US_ASCII)));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json").setInt(
                    HttpHeaderNames.CONTENT_LENGTH, 2);
            ctx.writeAndFlush(response);
        }
    }
}
