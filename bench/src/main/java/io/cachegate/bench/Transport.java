package io.cachegate.bench;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Epoll when the native transport loads (its timers have sub-millisecond resolution, which the
 * open loop's schedule relies on), NIO otherwise (millisecond timers: open-loop sends may be up to
 * a millisecond late, which the intended-time latency then shows).
 */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends SocketChannel> channelType) {

    static Transport detect() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioSocketChannel.class);
    }

    MultiThreadIoEventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("cachegate-bench", true),
                ioHandlerFactory);
    }
}
