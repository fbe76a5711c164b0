package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisDnsTest {

    @Test
    void resolvesAHostName_onItsOwnThread_notOnTheConnectionsLoop() throws Exception {
        EventLoopGroup connectionLoops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Future<InetSocketAddress> resolved = RedisDns.RESOLVERS.getResolver(connectionLoops.next())
                    .resolve(InetSocketAddress.createUnresolved("localhost", 6379));
            CompletableFuture<String> notifiedOn = new CompletableFuture<>();
            resolved.addListener(f -> notifiedOn.complete(Thread.currentThread().getName()));

            InetSocketAddress address = resolved.get(10, TimeUnit.SECONDS);
            assertThat(address.isUnresolved()).isFalse();
            assertThat(address.getAddress().isLoopbackAddress()).isTrue();
            assertThat(address.getPort()).isEqualTo(6379);
            assertThat(notifiedOn.get(10, TimeUnit.SECONDS)).startsWith("cachegate-redis-dns");
        } finally {
            connectionLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
