package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.NettyLeakCheck;
import io.cachegate.testkit.Poll;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Streaming pass-through: a client that leaves cancels the backend, a slow client slows the backend read. */
class StreamingIT {

    @Test
    void clientDisconnect_midStream_cancelsUpstream() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTpotMs(5));
             Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(sim.baseUrl())))) {
            try (Socket socket = RawHttp.connect(gw.port())) {
                socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", streamingChat(2000)));
                InputStream in = socket.getInputStream();
                String status = RawHttp.line(in);
                assertThat(status).startsWith("HTTP/1.1 200");
                assertThat(RawHttp.readEvents(in, 3)).isEqualTo(3);
            }
            assertThat(Poll.until(Duration.ofSeconds(10), () -> sim.stats().cancelled() == 1))
                    .as("backend saw the cancel: %s", sim.stats()).isTrue();
            assertThat(Poll.until(Duration.ofSeconds(10), () -> gw.metrics().inFlight() == 0)).isTrue();
            assertThat(sim.stats().completed()).isZero();
        }
    }

    @Test
    void slowClient_backPressure_gatewayDoesNotReadAhead() throws Exception {
        // About 19 MB of SSE: the kernel may hold 4 MB in the gateway's send buffer (tcp_wmem) however little the
        // gateway reads ahead, so the answer must dwarf that.
        int maxTokens = 100_000;
        NettyLeakCheck.sampled(() -> readAheadWhileTheClientStalls(maxTokens)); // 100,000 pieces: 30 s tracked each
    }

    private static void readAheadWhileTheClientStalls(int maxTokens) throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             CountingRelay relay = new CountingRelay(sim.baseUrl());
             // A whole answer's total timeout of 2 min: reading 19 MB through a 4 KiB window took 34 s at load 10.
             Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(relay.url()), "2s", "", "")
                     .replace("total: 30s", "total: 2m")))) {
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(4096);
                socket.connect(new InetSocketAddress("127.0.0.1", gw.port()), 5000);
                socket.setSoTimeout(30_000);
                socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", streamingChat(maxTokens)));
                InputStream in = socket.getInputStream();
                byte[] buf = new byte[4096];
                long read = 0;
                while (read < 256 * 1024) {
                    int n = in.read(buf);
                    assertThat(n).isPositive();
                    read += n;
                }
                // The client stops reading. Wait until the relay has stopped moving bytes too.
                assertThat(Poll.until(Duration.ofSeconds(20), relay.settled())).isTrue();
                long forwarded = relay.bytesToGateway();
                assertThat(sim.stats().completed()).isEqualTo(1); // the backend wrote it all (it ignores back-pressure)

                // Read the rest to learn the answer's full size and that nothing was lost on the way.
                ByteArrayOutputStream tail = new ByteArrayOutputStream();
                long total = read;
                int n;
                while ((n = in.read(buf)) != -1) {
                    total += n;
                    tail.write(buf, 0, n);
                    if (endsWithTerminalChunk(tail)) {
                        break;
                    }
                    if (tail.size() > 64 * 1024) {
                        byte[] keep = java.util.Arrays.copyOfRange(tail.toByteArray(), tail.size() - 64, tail.size());
                        tail.reset();
                        tail.write(keep);
                    }
                }
                assertThat(tail.toString(StandardCharsets.UTF_8)).contains("data: [DONE]");
                assertThat(total).isGreaterThan(15_000_000L);
                // Had the gateway buffered the answer, the relay would have passed on all of it.
                assertThat(forwarded).as("bytes pulled from the backend while the client had read %d of %d", read, total)
                        .isLessThan(total / 2);
            }
        }
    }

    private static boolean endsWithTerminalChunk(ByteArrayOutputStream out) {
        String s = out.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("0\r\n\r\n");
    }

    private static byte[] streamingChat(int maxTokens) {
        return ("{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"write a long story\"}]}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
