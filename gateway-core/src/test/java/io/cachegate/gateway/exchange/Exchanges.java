package io.cachegate.gateway.exchange;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.RouteTable;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.metrics.RequestMetrics;
import io.cachegate.gateway.request.EndpointStage;
import io.cachegate.gateway.request.ParseStage;
import io.cachegate.gateway.request.RouteStage;
import io.cachegate.testkit.FakeTicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Exchanges for stage tests, without sockets: each on a client connection of its own (an {@link EmbeddedChannel}
 * whose event loop runs on the test's thread), with one {@link GatewayMetrics} and one {@link FakeTicker} shared by
 * all of them. {@link #post} prepares an exchange as the front of the chain would (endpoint, parsed body, route).
 * {@link #close()} finishes what a test left open and releases every buffer still in a channel.
 */
public final class Exchanges implements AutoCloseable {

    public static final String CHAT = "/v1/chat/completions";

    /** One backend with a pinned model version, the in-memory exact cache: what most cache-stage tests need. */
    public static final Policy MEMORY_CACHE_POLICY = policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h}
            """);

    private final FakeTicker ticker = new FakeTicker();
    private final GatewayMetrics metrics = new GatewayMetrics();
    private final RequestMetrics observer = metrics.requests();
    private final StageChain front;
    private final Map<Exchange, AtomicInteger> finished = new IdentityHashMap<>();
    private final List<Exchange> created = new ArrayList<>();
    private int ids;

    public Exchanges(Policy policy) {
        OpenAiRequestParser parser = new OpenAiRequestParser(policy.server().json());
        this.front = StageChain.of(new EndpointStage(), new ParseStage(parser, policy.server()),
                new RouteStage(RouteTable.of(policy), parser), (x, next) -> { });
    }

    /** Parses a test policy; a policy error fails with its messages and the YAML. */
    public static Policy policy(String yaml) {
        try {
            return PolicyLoader.withEnvironment(Map.<String, String>of()::get).parse(yaml, "test.yaml");
        } catch (PolicyException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + yaml, e);
        }
    }

    /** A deterministic (cacheable) chat request for {@code model} with one user message. */
    public static String chatBody(String model, String userMessage) {
        return "{\"model\":\"" + model + "\",\"temperature\":0,\"max_tokens\":16,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + userMessage + "\"}]}";
    }

    public FakeTicker ticker() {
        return ticker;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /**
     * A POST of {@code body} to {@code path}, parsed and routed as the stages before the cache would, so it is
     * ready for the stage under test.
     *
     * @param headers name, value, name, value...
     */
    public Exchange post(String path, String body, String... headers) {
        Exchange x = unparsed(path, body, headers);
        front.start(x);
        if (x.isDone()) {
            throw new IllegalStateException("the front stages answered the request: " + written(x));
        }
        return x;
    }

    /** {@link #post} to {@code /v1/chat/completions}. */
    public Exchange chat(String body, String... headers) {
        return post(CHAT, body, headers);
    }

    /** A POST as it arrives, before any stage. */
    public Exchange unparsed(String path, String body, String... headers) {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path,
                buffer(body));
        request.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, request.content().readableBytes());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.headers().add(headers[i], headers[i + 1]);
        }
        AtomicInteger done = new AtomicInteger();
        Exchange x = new Exchange(channel.pipeline().firstContext(), request, "req-" + ++ids, true, ticker, observer,
                done::incrementAndGet);
        finished.put(x, done);
        created.add(x);
        return x;
    }

    /**
     * {@code text} in a pooled buffer: unlike unpooled heap buffers, pooled ones are tracked by the leak detector,
     * so a test fails when the code under test loses one.
     */
    public static ByteBuf buffer(String text) {
        return ByteBufUtil.writeUtf8(PooledByteBufAllocator.DEFAULT, text);
    }

    /** How many times {@code x}'s completion callback ran: 1 once it finished, never more. */
    public int finishedCount(Exchange x) {
        return finished.get(x).get();
    }

    /** The client connection of {@code x}. */
    public static EmbeddedChannel channel(Exchange x) {
        return (EmbeddedChannel) x.ctx().channel();
    }

    /** Runs the tasks queued on {@code x}'s event loop (where asynchronous steps resume). */
    public static void runPending(Exchange x) {
        channel(x).runPendingTasks();
    }

    /** What was written to {@code x}'s client since the last call; every buffer read is released. */
    public static Written written(Exchange x) {
        EmbeddedChannel channel = channel(x);
        HttpResponse head = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete = false;
        int messages = 0;
        for (Object msg = channel.readOutbound(); msg != null; msg = channel.readOutbound()) {
            messages++;
            try {
                if (msg instanceof HttpResponse response) {
                    head = response;
                }
                if (msg instanceof HttpContent content) {
                    byte[] bytes = ByteBufUtil.getBytes(content.content());
                    body.write(bytes, 0, bytes.length);
                    complete |= content instanceof LastHttpContent;
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
        return new Written(head, body.toString(StandardCharsets.UTF_8), complete, messages, channel.isOpen());
    }

    /**
     * A counter's count (or a summary's or timer's number of records) summed over the meters matching the tags (0
     * when none was ever registered).
     *
     * @param tags key, value, key, value...
     */
    public double count(String name, String... tags) {
        double finished = count(metrics, name, tags);
        if (name.equals("cachegate.requests")) {
            return finished;
        }
        // Stages state facts on the record and metrics are made when an exchange finishes; a stage test often
        // stops an exchange half way (the chain ends in a stage that does nothing). What its record states so far
        // counts as the real observer would count it at the end.
        try (GatewayMetrics preview = new GatewayMetrics()) {
            RequestMetrics previewObserver = preview.requests();
            for (Exchange x : created) {
                if (!x.isDone()) {
                    previewObserver.finished(x, 200, 0);
                }
            }
            return finished + count(preview, name, tags);
        }
    }

    private static double count(GatewayMetrics in, String name, String... tags) {
        Search found = in.registry().find(name).tags(tags);
        return found.counters().stream().mapToDouble(Counter::count).sum()
                + found.summaries().stream().mapToDouble(DistributionSummary::count).sum()
                + found.timers().stream().mapToDouble(Timer::count).sum();
    }

    /** Requests counted as finished ({@code cachegate.requests}), over every route, endpoint and status. */
    public double requestsFinished(String... tags) {
        return count("cachegate.requests", tags);
    }

    @Override
    public void close() {
        for (Exchange x : created) {
            if (!x.isDone()) {
                x.cancel();
            }
            if (!x.isDone()) {
                x.finish(499);
            }
            channel(x).finishAndReleaseAll();
        }
        metrics.close();
    }

    /**
     * What a client received.
     *
     * @param head the response head, or null when nothing was written
     * @param complete whether the answer's last piece was written
     * @param messages how many messages were written
     * @param open whether the connection is still open
     */
    public record Written(HttpResponse head, String body, boolean complete, int messages, boolean open) {

        public int status() {
            return head == null ? 0 : head.status().code();
        }

        /** A header of the head; null when absent or when nothing was written. */
        public String header(CharSequence name) {
            return head == null ? null : head.headers().get(name);
        }

        public boolean nothing() {
            return messages == 0;
        }

        @Override
        public String toString() {
            return nothing() ? "nothing" : status() + " " + (head == null ? "" : head.headers()) + " " + body
                    + (complete ? "" : " (incomplete)") + (open ? "" : " (closed)");
        }
    }
}
