package io.cachegate.gateway.transport;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Lends the gateway's event loops to Lettuce (the Redis client of the exact cache), through Lettuce's own
 * extension point for it: its connections then live on the loops that serve the clients, and a lookup made on a
 * loop is written and answered there, without the two thread hand-offs (to Lettuce's I/O thread and back) a hit
 * cost before. The gateway owns the loops: Lettuce's release and shutdown leave them running.
 */
public final class LettuceLoops implements EventLoopGroupProvider {

    private final EventLoopGroup group;
    private final int threads;

    private LettuceLoops(EventLoopGroup group, int threads) {
        this.group = group;
        this.threads = threads;
    }

    /**
     * Puts Lettuce on the gateway's {@code transport}, unless Lettuce's own system properties say otherwise: with
     * both native transports on the class path it prefers epoll (and warns at start), and its sockets register
     * only on loops of their own transport, so a gateway on io_uring could not lend it its loops ({@link #of}).
     * Lettuce reads the choice once, as its transport classes load, so this runs before the first Redis client is
     * made.
     */
    public static void steer(Transport transport) {
        if (transport == Transport.IO_URING) {
            System.getProperties().putIfAbsent("io.lettuce.core.epoll", "false");
        } else {
            System.getProperties().putIfAbsent("io.lettuce.core.iouring", "false");
        }
    }

    /**
     * The gateway's {@code group} of {@code threads} loops for Lettuce, or empty when Lettuce would open sockets of
     * another transport than {@code transport}'s (say io_uring against epoll): a channel only registers on a loop
     * of its own transport, and Lettuce then keeps threads of its own.
     */
    public static Optional<EventLoopGroupProvider> of(EventLoopGroup group, int threads, Transport transport) {
        return Transports.socketChannelClass() == transport.clientChannel()
                ? Optional.of(new LettuceLoops(group, threads)) : Optional.empty();
    }

    // Lettuce asks for the group class of the transport it picked (EpollEventLoopGroup, NioEventLoopGroup); of()
    // checked that the sockets match, and Lettuce uses the answer only as an EventLoopGroup.
    @Override
    @SuppressWarnings("unchecked")
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
        return (T) group;
    }

    @Override
    public int threadPoolSize() {
        return threads;
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }
}
