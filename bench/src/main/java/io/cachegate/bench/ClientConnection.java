package io.cachegate.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One keep-alive HTTP/1.1 connection with at most one request in flight: writes it, follows the
 * answer through the codec's parts (no aggregation; {@link SimpleChannelInboundHandler} releases
 * each), notes the first body byte, the status and the end, and reports to its {@link Worker}.
 * Runs on the worker's event loop only. Over HTTP/2 ({@link BenchOptions#http2()}) it sits behind
 * Netty's frame codec and multiplexer, and each request opens a stream of its own that speaks the
 * same HttpObjects to it.
 */
final class ClientConnection extends SimpleChannelInboundHandler<HttpObject> {

    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    /** Streams the server opens (push): none are expected, any is closed. */
    static final ChannelHandler NO_PUSH = new ChannelInitializer<Channel>() {
        @Override
        protected void initChannel(Channel ch) {
            ch.close();
        }
    };

    private final Worker worker;
    private final RunContext run;
    private final SseDoneScanner doneScanner = new SseDoneScanner();
    private Channel channel;
    /** Opens a stream per request over HTTP/2; null over HTTP/1.1. */
    private Http2StreamChannelBootstrap streams;
    /** The stream of the request in flight over HTTP/2: an earlier stream's late events are not this request's. */
    private Channel stream;
    private boolean closing;
    private long answers;

    // The request in flight.
    private boolean inFlight;
    private boolean streaming;
    private boolean recorded;
    private long startNanos;
    private boolean sawFirstByte;
    private long firstByteNanos;
    private int status;
    private boolean keepAlive;
    private ScheduledFuture<?> timeout;

    ClientConnection(Worker worker, RunContext run) {
        this.worker = worker;
        this.run = run;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (run.options().http2()) {
            streams = new Http2StreamChannelBootstrap(channel).handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel stream) {
                    stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false), new StreamAnswer());
                }
            });
        }
    }

    boolean inFlight() {
        return inFlight;
    }

    /** Complete answers received on this connection. */
    long answers() {
        return answers;
    }

    boolean reusable() {
        return keepAlive && !closing && channel.isActive();
    }

    /**
     * Sends {@code request}; latency will count from {@code startNanos} (its intended time in the
     * open loop, now in the closed loop), the timeout from now.
     */
    void send(BenchRequest request, long startNanos, boolean recorded) {
        this.inFlight = true;
        this.streaming = request.streaming();
        this.recorded = recorded;
        this.startNanos = startNanos;
        this.sawFirstByte = false;
        this.status = 0;
        this.keepAlive = true;
        doneScanner.reset();
        run.stats().sent(recorded, run.openLoop(), System.nanoTime() - startNanos);
        timeout = channel.eventLoop().schedule(this::onTimeout, run.timeoutNanos(), TimeUnit.NANOSECONDS);
        if (streams == null) {
            channel.writeAndFlush(run.encoder().encode(request)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            return;
        }
        stream = null;
        streams.open().addListener((Future<Http2StreamChannel> opened) -> {
            if (opened.isSuccess()) {
                stream = opened.getNow();
                stream.writeAndFlush(run.encoder().encode(request))
                        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            } else {
                abort(ErrorKind.PROTOCOL);
            }
        });
    }

    /** Closes the connection on the generator's behalf (end of run, broken answer). */
    void close() {
        closing = true;
        if (channel != null) {
            channel.close();
        }
    }

    /** Ends the request in flight, if any, as {@code kind} and closes the connection. */
    void abort(ErrorKind kind) {
        fail(kind);
        close();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
        onAnswer(msg);
    }

    private void onAnswer(HttpObject msg) {
        if (!inFlight) {
            return; // the tail of an answer that already timed out; the channel is closing
        }
        long now = System.nanoTime();
        if (msg.decoderResult().isFailure()) {
            abort(ErrorKind.PROTOCOL);
            return;
        }
        if (msg instanceof HttpResponse response) {
            status = response.status().code();
            keepAlive = HttpUtil.isKeepAlive(response);
        }
        if (msg instanceof HttpContent content) {
            ByteBuf bytes = content.content();
            if (bytes.isReadable()) {
                if (!sawFirstByte) {
                    sawFirstByte = true;
                    firstByteNanos = now;
                }
                if (streaming) {
                    doneScanner.scan(bytes);
                }
            }
            if (msg instanceof LastHttpContent) {
                complete(now);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fail(ErrorKind.PREMATURE_CLOSE);
        worker.onClosed(this);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and the like: the close that follows counts the request as a premature close.
        LOG.debug("connection {} failed: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** The answer on one HTTP/2 stream; a stream reset before its end fails the request in flight. */
    private final class StreamAnswer extends SimpleChannelInboundHandler<HttpObject> {

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (ctx.channel() == stream) {
                onAnswer(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (inFlight && ctx.channel() == stream) {
                abort(ErrorKind.PREMATURE_CLOSE); // as over HTTP/1.1, a failed request ends its connection
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("stream {} failed: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }

    private void complete(long now) {
        inFlight = false;
        answers++;
        cancelTimeout();
        boolean ok = status >= 200 && status < 300;
        ErrorKind streamError = ok && streaming && !doneScanner.found() ? ErrorKind.INCOMPLETE_STREAM : null;
        run.stats().answered(status, recorded, startNanos, sawFirstByte ? firstByteNanos : now, now, streamError);
        worker.onAnswered(this, recorded, now);
    }

    private void fail(ErrorKind kind) {
        if (!inFlight) {
            return;
        }
        inFlight = false;
        cancelTimeout();
        run.stats().failed(kind, recorded);
        worker.onFailed(this, recorded, System.nanoTime());
    }

    private void onTimeout() {
        if (inFlight) {
            abort(ErrorKind.TIMEOUT);
        }
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
