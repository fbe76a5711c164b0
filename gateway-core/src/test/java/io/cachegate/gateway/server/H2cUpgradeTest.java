package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The h2c upgrade handler serves a connection's first request only, then leaves the pipeline. */
class H2cUpgradeTest {

    private final GatewayMetrics metrics = new GatewayMetrics();
    private final Http2Switch http2 = new Http2Switch(null,
            Exchanges.policy("backends: [{name: main, urls: [\"http://127.0.0.1:1\"]}]").server(), metrics);
    private final EmbeddedChannel channel = new EmbeddedChannel();

    H2cUpgradeTest() {
        channel.pipeline().addLast(Http2Switch.UPGRADE, new H2cUpgrade(http2, 1 << 20));
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        metrics.close();
    }

    @Test
    void firstRequestPasses_andTheSecondFindsTheHandlerGone() {
        HttpRequest first = get();
        channel.writeInbound(first, LastHttpContent.EMPTY_LAST_CONTENT);
        Object passed = channel.readInbound();
        assertThat(passed).isSameAs(first);
        ReferenceCountUtil.release(channel.readInbound());
        assertThat(channel.pipeline().get(Http2Switch.UPGRADE)).as("still there for the first request").isNotNull();

        HttpRequest second = get();
        second.headers().set(HttpHeaderNames.UPGRADE, "h2c"); // too late: ignored, as before
        channel.writeInbound(second, LastHttpContent.EMPTY_LAST_CONTENT);

        assertThat(channel.pipeline().get(Http2Switch.UPGRADE)).isNull();
        Object head = channel.readInbound();
        Object last = channel.readInbound();
        assertThat(head).isSameAs(second);
        assertThat(last).isEqualTo(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    private static HttpRequest get() {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/v1/models");
    }
}
