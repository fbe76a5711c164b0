package io.cachegate.gateway.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Netty's native epoll transport on Linux, NIO elsewhere; chosen once at start. */
public enum Transport {
    EPOLL, NIO;

    public static Transport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    public EventLoopGroup newGroup(int threads, String name) {
        DefaultThreadFactory threadFactory = new DefaultThreadFactory(name, true);
        return this == EPOLL
                ? new MultiThreadIoEventLoopGroup(threads, threadFactory, EpollIoHandler.newFactory())
                : new MultiThreadIoEventLoopGroup(threads, threadFactory, NioIoHandler.newFactory());
    }

    public Class<? extends ServerSocketChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends SocketChannel> clientChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
