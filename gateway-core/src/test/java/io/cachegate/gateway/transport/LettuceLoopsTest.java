package io.cachegate.gateway.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LettuceLoopsTest {

    @Test
    void of_sameTransportAsLettuce_lendsTheGroupAndNeverShutsItDown() throws Exception {
        // Lettuce's choice is made once per JVM (steer() puts it on the gateway's transport before its first client).
        Transport transport = Arrays.stream(Transport.values())
                .filter(t -> t.clientChannel() == Transports.socketChannelClass()).findFirst().orElseThrow();
        EventLoopGroup group = transport.newGroup(2, "lettuce-loops-test");
        try {
            EventLoopGroupProvider loops = LettuceLoops.of(group, 2, transport).orElseThrow();

            assertThat(loops.threadPoolSize()).isEqualTo(2);
            assertThat((Object) loops.allocate(Transports.eventLoopGroupClass())).isSameAs(group);
            assertThat(loops.release(group, 0, 1, TimeUnit.SECONDS).get()).isTrue();
            assertThat(loops.shutdown(0, 1, TimeUnit.SECONDS).get()).isTrue();
            assertThat(group.isShuttingDown()).isFalse(); // the gateway owns its loops: Lettuce only borrowed them
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void steer_putsLettuceOnTheGatewaysTransport_unlessItsPropertiesAreSet() {
        String epoll = "io.lettuce.core.epoll";
        String uring = "io.lettuce.core.iouring";
        String epollBefore = System.getProperty(epoll);
        String uringBefore = System.getProperty(uring);
        try {
            System.clearProperty(epoll);
            System.clearProperty(uring);
            LettuceLoops.steer(Transport.IO_URING);
            assertThat(System.getProperty(epoll)).isEqualTo("false"); // Lettuce prefers epoll when both are there
            assertThat(System.getProperty(uring)).isNull();

            System.clearProperty(epoll);
            LettuceLoops.steer(Transport.EPOLL);
            assertThat(System.getProperty(uring)).isEqualTo("false");
            assertThat(System.getProperty(epoll)).isNull();

            System.setProperty(epoll, "true"); // the operator's word wins
            LettuceLoops.steer(Transport.IO_URING);
            assertThat(System.getProperty(epoll)).isEqualTo("true");
        } finally {
            restore(epoll, epollBefore);
            restore(uring, uringBefore);
        }
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    @Test
    void of_otherTransportThanLettuce_isEmpty() {
        Transport other = Transports.socketChannelClass() == Transport.NIO.clientChannel() ? Transport.EPOLL : Transport.NIO;
        EventLoopGroup group = Transport.NIO.newGroup(1, "lettuce-loops-test");
        try {
            // A channel registers only on a loop of its own transport: Lettuce then keeps threads of its own.
            assertThat(LettuceLoops.of(group, 1, other)).isEmpty();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
