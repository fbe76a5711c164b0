package io.cachegate.simulator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** The Netty side: transport choice (epoll on Linux, NIO elsewhere), the pipeline in named stages, binding. */
final class SimulatorServer {

    /** Bound on a request body; generous for long prompts, finite so a client cannot exhaust memory. */
    static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    /** Bound on waiting for the event loops at close: a stuck loop must not stop a JVM from exiting. */
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Read at bind: a closed channel no longer knows its address, and a restart rebinds this port. */
    private final int port;

    private SimulatorServer(EventLoopGroup group, Channel serverChannel) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    static SimulatorServer bind(Simulation sim) {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory ioHandler = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        BackendHeaders backendHeaders = new BackendHeaders(sim.gate,
                sim.options.maxConcurrency() + sim.options.maxQueue());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(0, new SimulatorThreadFactory(), ioHandler);
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(channelType)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true) // a restarted replica rebinds its port at once
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("backend-headers", backendHeaders)
                                    .addLast("aggregate", new HttpObjectAggregator(MAX_BODY_BYTES))
                                    .addLast("simulate", new SimulatorHandler(sim));
                        }
                    })
                    .bind(sim.options.host(), sim.options.port())
                    .syncUninterruptibly()
                    .channel();
            return new SimulatorServer(group, channel);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    int port() {
        return port;
    }

    /** Closes the listener and every connection, and waits (bounded) for the event loops to end. Idempotent. */
    void close() {
        awaitClosed(closeAsync());
    }

    /**
     * Starts closing without waiting: the listener and then the event loops, which close every
     * connection. Idempotent; returns the loops' termination, so many servers can close at once.
     */
    Future<?> closeAsync() {
        if (closed.compareAndSet(false, true)) {
            serverChannel.close();
            group.shutdownGracefully(0, CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        return group.terminationFuture();
    }

    static void awaitClosed(Future<?> termination) {
        termination.awaitUninterruptibly(CLOSE_WAIT_SECONDS + 1, TimeUnit.SECONDS);
    }
}
