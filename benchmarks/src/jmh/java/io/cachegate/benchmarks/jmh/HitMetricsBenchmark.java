package io.cachegate.benchmarks.jmh;

import io.cachegate.config.Ticker;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.metrics.RequestMetrics;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the gateway's request metrics cost one exact-cache hit, on the event loop: the observer reads the finished
 * exchange's record once (lookup outcome, the hit's savings, the request's counter and timer, the stage times), each
 * meter found in its map by a key of the labels.
 */
public class HitMetricsBenchmark extends JmhDefaults {

    private GatewayMetrics metrics;
    private RequestMetrics requests;
    private EmbeddedChannel channel;
    private Exchange hit;

    @Setup
    public void setUp() {
        metrics = new GatewayMetrics();
        requests = metrics.requests();
        channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        hit = new Exchange(channel.pipeline().firstContext(),
                new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions",
                        Unpooled.EMPTY_BUFFER), "req-1", true, Ticker.system(), ExchangeObserver.NONE, () -> { });
        hit.endpoint(Endpoint.CHAT_COMPLETIONS);
        hit.tenant("acme");
        hit.xCache("HIT");
        hit.record().exactLookup(LookupStatus.HIT);
        hit.record().hit("exact", Double.NaN, "req-0", 1_000, 17, 64, null);
        recordHit(); // the meters exist after the first request, as in a running gateway
    }

    @TearDown
    public void tearDown() {
        hit.request().release();
        channel.finishAndReleaseAll();
        metrics.close();
    }

    @Benchmark
    public RequestMetrics recordHit() {
        requests.started(hit);
        requests.finished(hit, 200, 150_000);
        return requests;
    }
}
