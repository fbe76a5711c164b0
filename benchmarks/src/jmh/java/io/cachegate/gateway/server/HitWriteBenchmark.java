package io.cachegate.gateway.server;

import io.cachegate.benchmarks.jmh.JmhDefaults;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.gateway.cache.CachedAnswerWriter;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What writing one exact hit's answer costs, from the stored entry to the bytes for the socket, through the
 * gateway's HTTP/1.1 encoder on an embedded channel: {@link #sharedHeaderBlock()} as the gateway writes it (the
 * headers every hit on the entry shares encoded once), {@link #everyHeaderPerHit()} as it was written before (every
 * header set and encoded per hit), the baseline of the same run, and {@link #channelOnly()}, the embedded channel's
 * own cost for the same bytes. Run with {@code -prof gc} for the bytes allocated per hit.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HitWriteBenchmark extends JmhDefaults {

    private static final HttpHeadersFactory HEADERS =
            DefaultHttpHeadersFactory.headersFactory().withNameValidation(false);
    private static final AsciiString EXACT = AsciiString.cached("exact");
    private static final String TIMING = "cache;dur=0.041, total;dur=0.093";

    private EmbeddedChannel channel;
    /** A channel with no handler: what writing through one costs by itself. */
    private EmbeddedChannel bare;
    private CacheEntry entry;
    private long now;
    private ByteBuf encoded;

    @Setup
    public void setUp() {
        channel = new EmbeddedChannel(new StrictServerCodec(new HttpDecoderConfig()));
        bare = new EmbeddedChannel();
        byte[] body = ("{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion\",\"created\":1764900000,\"model\":"
                + "\"llama-3.1-8b\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
                + "TCP congestion control adjusts the sending rate. ".repeat(12) + "\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":25,\"completion_tokens\":120,\"total_tokens\":145}}")
                .getBytes(StandardCharsets.UTF_8);
        now = System.currentTimeMillis();
        entry = new CacheEntry(body, now - 5_000, "bench@1", "req-origin-1", 25, 120, Set.of());
        channel.writeOutbound(CachedAnswerWriter.json(entry, null, "req-42", true, TIMING, now));
        encoded = channel.readOutbound();
    }

    @TearDown
    public void tearDown() {
        encoded.release();
        channel.finishAndReleaseAll();
        bare.finishAndReleaseAll();
    }

    @Benchmark
    public int sharedHeaderBlock() {
        return write(CachedAnswerWriter.json(entry, null, "req-42", true, TIMING, now));
    }

    @Benchmark
    public int everyHeaderPerHit() {
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(entry.body()), HEADERS, DefaultHttpHeadersFactory.trailersFactory());
        response.headers().set(GatewayHeaders.X_REQUEST_ID, "req-42")
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.HIT)
                .set(GatewayHeaders.X_CACHE_LAYER, EXACT)
                .set(HttpHeaderNames.AGE, Long.toString(entry.ageSeconds(now)))
                .set(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID, entry.originRequestId())
                .set(GatewayHeaders.SERVER_TIMING, TIMING)
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, entry.body().length);
        return write(response);
    }

    /** The embedded channel's own cost: the same size of bytes written through it, already encoded. */
    @Benchmark
    public int channelOnly() {
        bare.writeOutbound(encoded.retainedDuplicate());
        ByteBuf out = bare.readOutbound();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    private int write(FullHttpResponse response) {
        channel.writeOutbound(response);
        ByteBuf out = channel.readOutbound();
        int size = out.readableBytes();
        out.release();
        return size;
    }
}
