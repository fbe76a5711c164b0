package io.cachegate.gateway.server;

import io.cachegate.benchmarks.jmh.JmhDefaults;
import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the read timeouts cost one keep-alive request: its first bytes, head, end and answer through
 * {@link ReadTimeouts} on an embedded channel (head, body, answering and idle phases). The channel's own work is in
 * {@link #channelOnly()}, the same messages through a pipeline without the handler, so the difference is the handler.
 * The loop holds the far-off timers of {@link #OTHER_CONNECTIONS} other connections, as an event loop serving that
 * many does, so a timer scheduled or cancelled moves through a queue of that size.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReadTimeoutsBenchmark extends JmhDefaults {

    private static final ByteBuf FIRST_BYTES = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("POST /v1/chat/completions HTTP/1.1\r\n", StandardCharsets.US_ASCII));
    private static final HttpRequest HEAD = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
            "/v1/chat/completions");
    private static final DefaultFullHttpResponse ANSWER = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
            HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);

    private static final int OTHER_CONNECTIONS = 32;

    private GatewayMetrics metrics;
    private EmbeddedChannel withTimeouts;
    private EmbeddedChannel without;

    @Setup
    public void setUp() {
        metrics = new GatewayMetrics();
        ReadTimeouts timeouts = new ReadTimeouts(ServerSettings.Connections.defaults(), metrics);
        withTimeouts = new EmbeddedChannel();
        withTimeouts.pipeline().addLast(timeouts.bytes(), timeouts);
        without = new EmbeddedChannel();
        for (EmbeddedChannel channel : new EmbeddedChannel[] {withTimeouts, without}) {
            for (int i = 0; i < OTHER_CONNECTIONS; i++) {
                channel.eventLoop().schedule(() -> { }, 1 + i % 60, TimeUnit.SECONDS);
            }
        }
    }

    @TearDown
    public void tearDown() {
        withTimeouts.finishAndReleaseAll();
        without.finishAndReleaseAll();
        metrics.close();
    }

    @Benchmark
    public EmbeddedChannel keepAliveRequest() {
        return request(withTimeouts);
    }

    @Benchmark
    public EmbeddedChannel channelOnly() {
        return request(without);
    }

    private static EmbeddedChannel request(EmbeddedChannel channel) {
        channel.writeInbound(FIRST_BYTES.duplicate());
        channel.writeInbound(HEAD);
        channel.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.writeOutbound(ANSWER);
        channel.inboundMessages().clear();
        channel.outboundMessages().clear();
        return channel;
    }
}
