package io.cachegate.gateway.upstream;

import io.cachegate.config.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A backend the test scripts, without sockets: every call is a real {@link UpstreamCall} (its timers, states and
 * back-pressure) over a connection that is an {@link EmbeddedChannel} ending in the pool's {@link UpstreamHandler},
 * as after {@code HttpClientCodec}. The test reads the request the call sent and writes the answer's pieces.
 */
public final class ScriptedUpstream implements UpstreamCaller, AutoCloseable {

    private final Ticker ticker;
    private final List<Call> calls = new ArrayList<>();
    private final Set<URI> refusing = new HashSet<>();

    public ScriptedUpstream(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public UpstreamCall call(EventLoop loop, URI url, UpstreamSettings settings, FullHttpRequest request,
                             UpstreamListener listener) {
        EmbeddedChannel connection = new EmbeddedChannel(new UpstreamHandler());
        Call call = new Call(url, connection);
        calls.add(call);
        UpstreamCall upstream = new UpstreamCall(loop, new OneConnection(connection, refusing.contains(url)), settings,
                request, listener, ticker);
        upstream.start();
        return upstream;
    }

    /** From now on every connection to {@code url} is refused, as by a backend that is not listening. */
    public void refuse(URI url) {
        refusing.add(url);
    }

    /** The calls started so far, in order. */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public Call call(int index) {
        return calls.get(index);
    }

    /** Releases whatever the connections still hold. */
    @Override
    public void close() {
        for (Call call : calls) {
            call.connection.finishAndReleaseAll();
        }
    }

    /** One call: where it went, what it sent, and the answer the test gives it. */
    public static final class Call {

        private final URI url;
        private final EmbeddedChannel connection;
        private String body;
        private String model;

        private Call(URI url, EmbeddedChannel connection) {
            this.url = url;
            this.connection = connection;
        }

        public URI url() {
            return url;
        }

        /** The body of the request the call sent (read once from the connection, then released). */
        public String requestBody() {
            if (body == null) {
                FullHttpRequest sent = connection.readOutbound();
                if (sent == null) {
                    throw new IllegalStateException("the call sent no request");
                }
                try {
                    body = sent.content().toString(StandardCharsets.UTF_8);
                } finally {
                    sent.release();
                }
            }
            return body;
        }

        /** The model the sent request names, read naively (the tests' bodies are flat). */
        public String requestModel() {
            if (model == null) {
                String text = requestBody();
                int at = text.indexOf("\"model\":\"") + 9;
                model = text.substring(at, text.indexOf('"', at));
            }
            return model;
        }

        /** A head with {@code status}; a body follows in pieces ({@link #piece}, {@link #last}). */
        public void head(int status, String contentType) {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            HttpUtil.setTransferEncodingChunked(head, true);
            connection.writeInbound(head);
        }

        /** A whole answer as the codec delivers it: the head, then the body as the last piece, in one read. */
        public void answer(int status, String contentType, String text) {
            ByteBuf body = pooled(text);
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH,
                    body.readableBytes());
            connection.writeInbound(head, new DefaultLastHttpContent(body));
        }

        /** A head announcing a {@code Content-Length} body of {@code length} bytes, which follows in later reads. */
        public void headWithLength(int status, String contentType, int length) {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH, length);
            connection.writeInbound(head);
        }

        public void piece(String text) {
            connection.writeInbound(new DefaultHttpContent(pooled(text)));
        }

        public void last(String text) {
            connection.writeInbound(new DefaultLastHttpContent(pooled(text)));
        }

        /** Pooled, so the leak detector sees a piece the relay loses. */
        private static ByteBuf pooled(String text) {
            return ByteBufUtil.writeUtf8(PooledByteBufAllocator.DEFAULT, text);
        }

        /** The backend drops the connection. */
        public void dropConnection() {
            connection.close();
        }

        /** False once the call closed its connection (abandoned, cancelled or failed). */
        public boolean connectionOpen() {
            return connection.isOpen();
        }
    }

    /** A pool of the one connection a call uses. */
    private static final class OneConnection implements ChannelPool {

        private final EmbeddedChannel connection;
        private final boolean refused;

        OneConnection(EmbeddedChannel connection, boolean refused) {
            this.connection = connection;
            this.refused = refused;
        }

        @Override
        public Future<Channel> acquire() {
            return acquire(connection.eventLoop().newPromise());
        }

        @Override
        public Future<Channel> acquire(Promise<Channel> promise) {
            return refused ? promise.setFailure(new ConnectException("Connection refused"))
                    : promise.setSuccess(connection);
        }

        @Override
        public Future<Void> release(Channel channel) {
            return release(channel, connection.eventLoop().newPromise());
        }

        @Override
        public Future<Void> release(Channel channel, Promise<Void> promise) {
            return promise.setSuccess(null);
        }

        @Override
        public void close() {
        }
    }
}
