package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.EOFException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Slow clients over HTTP/2: a stream whose body stalls gets 408 while its connection goes on, a connection without
 * streams is closed at {@code idle_timeout}, and a client that stops opening its flow-control window slows the
 * backend read of a streamed answer as a client that stops reading does over HTTP/1.1.
 */
class Http2SlowClientsIT {

    private static final String TIMEOUTS = "header_timeout: 500ms, body_timeout: 500ms, idle_timeout: 1s";

    @Test
    void stalledBody_onOneStream_gets408_andTheConnectionGoesOn() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), Http2IT.policy(TIMEOUTS)));
             RawH2 h2 = RawH2.connect(gw.port())) {
            h2.headers(1, "POST", Http2IT.CHAT, false, "content-type", "application/json"); // its body never comes
            long start = System.nanoTime();
            h2.await(1);
            assertThat(h2.answers.get(1).status()).isEqualTo("408");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

            h2.post(3, Http2IT.CHAT, CacheCalls.chat("after a stall").getBytes(StandardCharsets.UTF_8));
            h2.await(3);
            assertThat(h2.answers.get(3).status()).isEqualTo("200");
        }
    }

    @Test
    void connectionWithoutStreams_isClosedAtTheIdleTimeout() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), Http2IT.policy(TIMEOUTS)));
             RawH2 h2 = RawH2.connect(gw.port())) {
            h2.headers(1, "GET", "/v1/models", true);
            h2.await(1);
            long answered = System.nanoTime();
            h2.ping(); // PINGs keep no connection open
            Thread.sleep(500);
            h2.ping();
            boolean goaway = false;
            try {
                while (true) { // nothing more is sent: a write to the closed socket would reset it, losing the GOAWAY
                    goaway |= h2.next().type() == RawH2.GOAWAY;
                }
            } catch (EOFException | SocketException e) {
                // closed by the gateway
            }
            Duration open = Duration.ofNanos(System.nanoTime() - answered);
            assertThat(goaway).as("GOAWAY before the close").isTrue();
            assertThat(open).isGreaterThan(Duration.ofMillis(800)).isLessThan(Duration.ofSeconds(5));
            assertThat(gw.metrics().registry().get("cachegate.connections.timed_out").tag("phase", "idle")
                    .counter().count()).isPositive();
        }
    }

    @Test
    void closedWindow_stopsTheBackendRead_thenTheAnswerArrivesWhole() throws Exception {
        // About 4.5 MB of SSE: the client's window, not a kernel buffer, is what holds the gateway back here, so the
        // answer need only dwarf the relay's and the sockets' few hundred KB (StreamingIT needs 19 MB over HTTP/1.1).
        int maxTokens = 20_000;
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             CountingRelay relay = new CountingRelay(sim.baseUrl());
             Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(relay.url()), "10s", "", "")));
             RawH2 h2 = RawH2.connect(gw.port())) {
            h2.soTimeout(30_000);
            h2.openWindows = false; // 64 KiB and no more, until the client gives window back
            h2.post(1, Http2IT.CHAT, ("{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":" + maxTokens
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"write a long story\"}]}")
                    .getBytes(StandardCharsets.UTF_8));
            while (h2.answers.get(1) == null || h2.answers.get(1).body.size() < 65_535) {
                h2.next();
                RawH2.Answer answer = h2.answers.get(1);
                assertThat(answer == null || !answer.ended).as("ended early: %s %s", answer == null ? null
                        : answer.status(), answer == null ? null : answer.text()).isTrue();
            }
            assertThat(Poll.until(Duration.ofSeconds(20), relay.settled())).isTrue();
            long forwarded = relay.bytesToGateway();
            assertThat(sim.stats().completed()).isEqualTo(1); // the backend wrote it all (it ignores back-pressure)

            h2.openWindows = true;
            h2.windowUpdate(0, 65_535);
            h2.windowUpdate(1, 65_535);
            h2.await(1);
            RawH2.Answer answer = h2.answers.get(1);
            long total = answer.body.size();
            assertThat(answer.text()).endsWith("data: [DONE]\n\n");
            assertThat(total).isGreaterThan(4_000_000L);
            assertThat(forwarded).as("bytes pulled from the backend while the client's window was shut")
                    .isLessThan(total / 2);
        }
    }
}
