package io.cachegate.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.ssl.SslHandler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One event loop's share of a run: its connections and, in the open loop, its slice of the
 * schedule (indices {@code index, index + stride, ...}) and its backlog. Every method runs on
 * {@link #loop}, so the state needs no locks and no other worker sees it.
 *
 * <p>Closed loop: each connection sends its next request when the previous answer is complete,
 * until the end of the run. Open loop: a timer on the loop fires at each intended send time; a due
 * request goes to an idle connection, else waits in the bounded backlog while a new connection is
 * opened (up to this worker's share), else fails as {@code generator_backlog}.
 */
final class Worker {

    /** Closed loop: pause before reconnecting after a connection failed or gave no answer, so a dead target is not spun on. */
    private static final long RECONNECT_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Open loop: most late requests dispatched in one tick before I/O gets a turn. */
    private static final int MAX_DISPATCH_PER_TICK = 256;

    private final EventLoop loop;
    private final RunContext run;
    private final RunWindow window;
    private final Bootstrap bootstrap;
    private final int maxConnections;
    private final int backlogLimit;
    private final int stride;
    private final IntendedTimeSchedule schedule;
    private final Runnable onFinished;

    private final Set<ClientConnection> live = new LinkedHashSet<>();
    private final ArrayDeque<ClientConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<Pending> backlog = new ArrayDeque<>();
    private long nextIndex;
    private int busy;
    private int pendingReconnects;
    private boolean draining;
    private boolean finished;
    private long lastRecordedEndNanos;

    /** A due open-loop request waiting for a connection. */
    private record Pending(BenchRequest request, long intendedNanos, boolean recorded) {
    }

    Worker(EventLoop loop, Transport transport, RunContext run, int index, int stride, int maxConnections,
           int backlogLimit, Runnable onFinished) {
        this.loop = loop;
        this.run = run;
        this.window = run.window();
        this.maxConnections = maxConnections;
        this.backlogLimit = backlogLimit;
        this.stride = stride;
        this.nextIndex = index;
        this.onFinished = onFinished;
        this.schedule = run.openLoop()
                ? new IntendedTimeSchedule(window.startNanos(), run.options().ratePerSecond()) : null;
        long connectTimeoutMillis = Math.max(1, Math.min(Integer.MAX_VALUE, run.timeoutNanos() / 1_000_000));
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(transport.channelType())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeoutMillis);
    }

    EventLoop loop() {
        return loop;
    }

    /** When the last recorded request of this worker ended (0 if none); read after the worker finished. */
    long lastRecordedEndNanos() {
        return lastRecordedEndNanos;
    }

    void start() {
        if (run.openLoop()) {
            tick(); // the schedule itself notices its end
        } else {
            schedule(this::endReached, window.endNanos() - System.nanoTime());
            for (int i = 0; i < maxConnections; i++) {
                openConnection();
            }
        }
    }

    /** The drain deadline passed or the run failed: end everything now. */
    void abort() {
        if (finished) {
            return;
        }
        draining = true;
        Pending pending;
        while ((pending = backlog.pollFirst()) != null) {
            run.stats().failed(ErrorKind.UNFINISHED, pending.recorded());
        }
        for (ClientConnection conn : new ArrayList<>(live)) {
            conn.abort(ErrorKind.UNFINISHED);
        }
        checkDone();
    }

    // ---- open loop -------------------------------------------------------------------------

    private void tick() {
        if (draining) {
            return;
        }
        long now = System.nanoTime();
        for (int dispatched = 0; ; dispatched++) {
            long intended = schedule.intendedNanos(nextIndex);
            if (intended - window.endNanos() >= 0) {
                draining = true;
                checkDone();
                return;
            }
            if (intended - now > 0) {
                now = System.nanoTime();
                if (intended - now > 0) {
                    schedule(this::tick, intended - now);
                    return;
                }
            }
            if (dispatched == MAX_DISPATCH_PER_TICK) {
                loop.execute(this::tick);
                return;
            }
            nextIndex += stride;
            dispatch(intended);
            if (draining) {
                return; // aborted while dispatching
            }
        }
    }

    private void dispatch(long intendedNanos) {
        BenchRequest request = run.nextRequest();
        if (request == null) {
            abort(); // the source failed; the monitor stops the other workers and reports it
            return;
        }
        boolean recorded = window.isRecorded(intendedNanos);
        ClientConnection conn = idle.pollLast();
        if (conn != null) {
            send(conn, request, intendedNanos, recorded);
        } else if (backlog.size() >= backlogLimit) {
            run.stats().failed(ErrorKind.GENERATOR_BACKLOG, recorded);
        } else {
            backlog.addLast(new Pending(request, intendedNanos, recorded));
            if (live.size() < maxConnections) {
                openConnection();
            }
        }
    }

    // ---- both loops ------------------------------------------------------------------------

    /** {@code conn} is connected and has nothing in flight: give it work, park it, or close it. */
    private void ready(ClientConnection conn) {
        if (run.openLoop()) {
            Pending pending = backlog.pollFirst();
            if (pending != null) {
                send(conn, pending.request(), pending.intendedNanos(), pending.recorded());
                return;
            }
            if (!draining) {
                idle.addLast(conn);
                return;
            }
        } else if (!closedLoopOver()) {
            long now = System.nanoTime();
            BenchRequest request = run.nextRequest();
            if (request != null) {
                send(conn, request, now, window.isRecorded(now));
                return;
            }
            conn.close();
            abort();
            return;
        }
        conn.close();
    }

    private void send(ClientConnection conn, BenchRequest request, long startNanos, boolean recorded) {
        busy++;
        conn.send(request, startNanos, recorded);
    }

    void onAnswered(ClientConnection conn, boolean recorded, long endNanos) {
        busy--;
        if (recorded) {
            lastRecordedEndNanos = endNanos;
        }
        if (conn.reusable()) {
            ready(conn);
        } else {
            conn.close();
        }
        checkDone();
    }

    /** The request in flight on {@code conn} failed; the connection is closing and will not be reused. */
    void onFailed(ClientConnection conn, boolean recorded, long endNanos) {
        busy--;
        if (recorded) {
            lastRecordedEndNanos = endNanos;
        }
    }

    void onClosed(ClientConnection conn) {
        live.remove(conn);
        idle.remove(conn);
        // A connection that never completed an answer is treated like a failed connect: reconnect after a pause.
        replace(conn.answers() == 0);
        checkDone();
    }

    private void openConnection() {
        ClientConnection conn = new ClientConnection(this, run);
        live.add(conn);
        ChannelFuture connect = bootstrap.clone()
                .remoteAddress(run.address())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        SslHandler tls = run.newTlsHandler(ch.alloc());
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls);
                        }
                        if (run.options().http2()) {
                            ch.pipeline().addLast("h2", Http2FrameCodecBuilder.forClient().build())
                                    .addLast("streams", new Http2MultiplexHandler(ClientConnection.NO_PUSH))
                                    .addLast("client", conn);
                        } else {
                            ch.pipeline().addLast("codec", new HttpClientCodec()).addLast("client", conn);
                        }
                    }
                })
                .connect();
        connect.addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                onConnectFailed(conn, f.cause());
                return;
            }
            SslHandler tls = f.channel().pipeline().get(SslHandler.class);
            if (tls == null) {
                ready(conn);
                return;
            }
            // Over TLS the connection is ready once the handshake is done; a failed one closes it (onClosed).
            tls.handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    ready(conn);
                } else {
                    run.connectFailed(h.cause());
                }
            });
        });
    }

    private void onConnectFailed(ClientConnection conn, Throwable cause) {
        if (!live.remove(conn)) {
            return;
        }
        if (!draining || !backlog.isEmpty()) {
            run.connectFailed(cause);
            long now = System.nanoTime();
            if (run.openLoop()) {
                // The request that wanted this connection fails; later ones try a new connection.
                Pending pending = backlog.pollFirst();
                if (pending != null) {
                    run.stats().failed(ErrorKind.CONNECT, pending.recorded());
                }
            } else {
                run.stats().failed(ErrorKind.CONNECT, window.isRecorded(now));
            }
        }
        replace(true);
        checkDone();
    }

    /** Keeps the connection count up after one went away: always in the closed loop, on demand in the open. */
    private void replace(boolean backOff) {
        if (run.openLoop() ? draining && backlog.isEmpty() : closedLoopOver()) {
            return;
        }
        if (run.openLoop()) {
            if (!backlog.isEmpty() && live.size() < maxConnections) {
                openConnection();
            }
        } else if (backOff) {
            pendingReconnects++;
            schedule(() -> {
                pendingReconnects--;
                replace(false);
                checkDone();
            }, RECONNECT_BACKOFF_NANOS);
        } else if (live.size() < maxConnections) {
            openConnection();
        }
    }

    /** Closed loop: whether the run is over, noticed here even before the end timer fires. */
    private boolean closedLoopOver() {
        if (!draining && System.nanoTime() - window.endNanos() >= 0) {
            draining = true;
        }
        return draining;
    }

    private void endReached() {
        draining = true;
        checkDone();
    }

    /** Once no more work can come, closes the remaining connections, then reports this worker finished. */
    private void checkDone() {
        if (finished || !draining || !backlog.isEmpty() || busy > 0 || pendingReconnects > 0) {
            return;
        }
        if (!live.isEmpty()) {
            idle.clear();
            for (ClientConnection conn : new ArrayList<>(live)) {
                if (!conn.inFlight()) {
                    conn.close();
                }
            }
            return; // onClosed / onConnectFailed call back in
        }
        finished = true;
        onFinished.run();
    }

    private void schedule(Runnable task, long delayNanos) {
        loop.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
