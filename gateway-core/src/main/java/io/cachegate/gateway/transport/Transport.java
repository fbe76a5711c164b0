package io.cachegate.gateway.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
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
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Locale;

/**
 * The network transport, chosen once at start: Netty's io_uring where the kernel allows it (measured cheaper than
 * epoll for hits and proxying, docs/benchmarks.md), else its native epoll on Linux, NIO elsewhere; {@code
 * -Dcachegate.transport=epoll|nio} picks one (a container whose seccomp profile refuses io_uring gets epoll anyway).
 */
public enum Transport {
    EPOLL, IO_URING, NIO;

    /** The system property that picks a transport: {@code io_uring} (the default where available), {@code epoll} or {@code nio}. */
    public static final String PROPERTY = "cachegate.transport";

    public static Transport best() {
        String asked = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        if (asked.equals("nio")) {
            return NIO;
        }
        if (!asked.equals("epoll") && IoUring.isAvailable()) {
            return IO_URING;
        }
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    public EventLoopGroup newGroup(int threads, String name) {
        IoHandlerFactory handlers = switch (this) {
            case EPOLL -> EpollIoHandler.newFactory();
            case IO_URING -> IoUringIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        };
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), handlers);
    }

    public Class<? extends ServerSocketChannel> serverChannel() {
        return switch (this) {
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    public Class<? extends SocketChannel> clientChannel() {
        return switch (this) {
            case EPOLL -> EpollSocketChannel.class;
            case IO_URING -> IoUringSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }
}
