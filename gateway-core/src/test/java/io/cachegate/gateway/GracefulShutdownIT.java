package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A shutdown lets a stream in flight finish in full and refuses new connections at once. */
class GracefulShutdownIT {

    @Test
    void shutdown_streamInFlight_completesInFull() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTpotMs(10))) {
            Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(sim.baseUrl())));
            int port = gw.port();
            CompletableFuture<Void> shutdown = null;
            try (Socket socket = RawHttp.connect(port)) {
                socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions",
                        ("{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":150,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}").getBytes(StandardCharsets.UTF_8)));
                InputStream in = socket.getInputStream();
                assertThat(RawHttp.line(in)).startsWith("HTTP/1.1 200");
                String line;
                do {
                    line = RawHttp.line(in);
                } while (line != null && !line.startsWith("data: {"));
                assertThat(line).isNotNull();

                shutdown = CompletableFuture.runAsync(() -> gw.shutdown(Duration.ofSeconds(10)));
                // New connections are refused once shutdown has started.
                assertThat(Poll.until(Duration.ofSeconds(5), () -> refused(port))).isTrue();

                StringBuilder rest = new StringBuilder();
                int tokens = 1;
                while ((line = RawHttp.line(in)) != null) {
                    rest.append(line).append('\n');
                    if (line.startsWith("data: {")) {
                        tokens++;
                    }
                    if (line.equals("data: [DONE]")) {
                        break;
                    }
                }
                assertThat(rest.toString()).contains("data: [DONE]").contains("\"finish_reason\":\"length\"");
                assertThat(tokens).isGreaterThanOrEqualTo(150);
            } finally {
                if (shutdown != null) {
                    shutdown.join();
                } else {
                    gw.close();
                }
            }
            assertThat(sim.stats().completed()).isEqualTo(1);
            assertThat(sim.stats().cancelled()).isZero();
            assertThat(gw.metrics().inFlight()).isZero();
        }
    }

    private static boolean refused(int port) {
        try {
            RawHttp.connect(port).close();
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void shutdown_twice_isHarmless() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults())) {
            Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(sim.baseUrl())));
            int port = gw.port();
            gw.shutdown(Duration.ofSeconds(1));
            gw.close();
            assertThatThrownBy(() -> RawHttp.connect(port).close()).isInstanceOf(IOException.class);
        }
    }
}
