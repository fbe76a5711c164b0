package io.cachegate.cache.exact;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;

/**
 * Where Lettuce looks up Redis host names: Netty's asynchronous DNS resolver, on one NIO thread of its own. Lettuce's
 * default resolver group resolves on the connection's own loop, which for the exact cache is a gateway loop on
 * io_uring: the resolver's datagram channel there keeps a receive buffer posted, which a loop that shuts down
 * never gets back (Netty's leak detector reported it in our tests, now and then), and the group is static, so its
 * channels are never closed. A blocking JDK lookup instead would stall the loop serving clients while DNS is slow.
 * A connect or reconnect resolves here, then connects on its own loop.
 */
public final class RedisDns {

    private static final EventLoopGroup LOOP = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("cachegate-redis-dns", true), NioIoHandler.newFactory());

    /** The resolvers every Redis client of the gateway uses. */
    public static final AddressResolverGroup<InetSocketAddress> RESOLVERS = new DnsAddressResolverGroup(
            new DnsNameResolverBuilder(LOOP.next())
                    .datagramChannelType(NioDatagramChannel.class)
                    .socketChannelType(NioSocketChannel.class));

    private RedisDns() {
    }
}
