package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cachegate.gateway.transport.Transport;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gateway on each native transport: io_uring (the default where the kernel allows it, Lettuce then on the
 * gateway's loops) and epoll ({@code -Dcachegate.transport=epoll}; Lettuce, whose transport is chosen once per
 * JVM, then on threads of its own): a miss relayed, its repeat answered from the memory store and from Redis, a
 * stream relayed, and the gateway closed. The io_uring rows are skipped where the kernel does not allow it.
 */
class IoUringTransportIT {

    private static final String CHAT = "/v1/chat/completions";

    @ParameterizedTest
    @CsvSource({"io_uring, memory", "io_uring, redis", "epoll, memory", "epoll, redis"})
    void onEachTransport_missesHitsAndStreams(String transport, String store) throws Exception {
        Transport expected = transport.equals("epoll") ? Transport.EPOLL : Transport.IO_URING;
        assumeTrue(expected == Transport.EPOLL ? Epoll.isAvailable() : IoUring.isAvailable(),
                transport + " is not available here");
        String before = System.getProperty(Transport.PROPERTY);
        System.setProperty(Transport.PROPERTY, transport);
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim, store)))) {
            assertThat(gw.transport()).isEqualTo(expected);
            String body = chat("io_uring " + nonce());

            HttpResponse<String> miss = RawHttp.post(gw.port(), CHAT, body);
            HttpResponse<String> hit = RawHttp.post(gw.port(), CHAT, body);
            for (long until = System.nanoTime() + 5_000_000_000L; !"HIT".equals(xCache(hit))
                    && System.nanoTime() < until; ) {
                Thread.sleep(50); // the store's write of the answer goes on after the answer
                hit = RawHttp.post(gw.port(), CHAT, body);
            }
            HttpResponse<String> stream = RawHttp.post(gw.port(), CHAT,
                    chat("streamed " + nonce(), "\"stream\":true"));

            assertThat(miss.statusCode()).as(miss.body()).isEqualTo(200);
            assertThat(xCache(miss)).isEqualTo("MISS");
            assertThat(xCache(hit)).isEqualTo("HIT");
            assertThat(content(hit.body())).isEqualTo(content(miss.body()));
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(stream.body()).startsWith("data: ").contains("data: [DONE]");
        } finally {
            if (before == null) {
                System.clearProperty(Transport.PROPERTY);
            } else {
                System.setProperty(Transport.PROPERTY, before);
            }
        }
    }

    private static String policy(BackendSimulator sim, String store) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2}
                backends:
                  - name: main
                    urls: ["%s"]
                    model_version: "llama@1"
                cache:
                  exact: {store: %s, redis_uri: "%s", timeout: 1s}
                """.formatted(sim.baseUrl(), store, RedisTestServer.sharedUri());
    }
}
