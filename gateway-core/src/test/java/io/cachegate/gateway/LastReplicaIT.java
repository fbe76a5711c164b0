package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import io.cachegate.testkit.Poll;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A backend that fails some requests is not taken away from every tenant: request failures never eject the last
 * healthy replica (the probe decides), and a first-byte timeout of a non-streamed request does not count at all.
 * Once a failed probe has ejected it, its first passing probe lets it back in: no cool-down while nothing else serves.
 */
class LastReplicaIT {

    private static final String CHAT = "/v1/chat/completions";

    @Test
    void oneReplicaFailingSomeRequests_isNeverEjected_no503WhileProbesPass() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(1, SimulatorOptions.defaults().withErrorRate(0.3));
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "2s"))) {
            int overloaded = 0;
            int failed = 0;
            int ok = 0;
            for (int i = 0; i < 60; i++) {
                HttpResponse<String> r = RawHttp.post(gw.port(), CHAT, chat("tenant request " + i, 4, false));
                if (r.statusCode() == 503) {
                    overloaded++;
                } else if (r.statusCode() == 200) {
                    ok++;
                } else {
                    failed++;
                }
            }
            // Before: the third consecutive 500 ejected the only replica and later requests got 503 for eject_for.
            assertThat(sims.stats(0).errors()).as("the backend failed requests").isGreaterThanOrEqualTo(3);
            assertThat(failed).as("its failures reach the client as they are").isGreaterThanOrEqualTo(3);
            assertThat(overloaded).as("503 answers while the probes pass").isZero();
            assertThat(ok + failed).isEqualTo(60);
        }
    }

    @Test
    @SuppressWarnings("try") // the restarted simulator is only held open: the gateway reaches it by its port
    void theOnlyReplicaDownThenBack_servesAfterItsFirstPassingProbe_notAfterEjectFor() throws Exception {
        BackendSimulator first = BackendSimulator.start(SimulatorOptions.defaults());
        try (Gateway gw = Gateway.start(policy(List.of(first.baseUrl()), "5s"))) {
            assertThat(RawHttp.post(gw.port(), CHAT, chat("before", 4, false)).statusCode()).isEqualTo(200);
            first.close();
            // A failed probe (one a second) ejects it for eject_for, 30 s: a new prompt gets 503 at once.
            assertThat(Poll.untilChecked(Duration.ofSeconds(10),
                    () -> RawHttp.post(gw.port(), CHAT, chat("while down", 4, false)).statusCode() == 503)).isTrue();
            try (BackendSimulator back = BackendSimulator.start(SimulatorOptions.defaults().withPort(first.port()))) {
                long restarted = System.nanoTime();
                assertThat(Poll.untilChecked(Duration.ofSeconds(25),
                        () -> RawHttp.post(gw.port(), CHAT, chat("after", 4, false)).statusCode() == 200)).isTrue();
                double seconds = (System.nanoTime() - restarted) / 1e9;
                // Before: 503 until the 30 s cool-down had passed, though every probe since the restart passed.
                assertThat(seconds).as("seconds from the restart to the first answer").isLessThan(10);
            }
        } finally {
            first.close(); // a second close does nothing
        }
    }

    @Test
    void nonStreamedFirstByteTimeouts_doNotCountAgainstTheReplicas() throws Exception {
        // 40 tokens at 50 ms each: the head of a non-streamed answer comes after ~2 s, past a 300 ms first_byte.
        SimulatorOptions slow = SimulatorOptions.defaults().withTpotMs(50);
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(2, slow);
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "300ms"))) {
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> r = RawHttp.post(gw.port(), CHAT, chat("long generation " + i, 40, false));
                assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
            }
            String stats = RawHttp.get(gw.adminPort(), "/admin/stats").body();
            // Six timeouts over two replicas with failures_to_eject 3 ejected at least one of them before.
            assertThat(stats).doesNotContain("\"OPEN\"").doesNotContain("\"consecutiveFailures\":3")
                    .contains("\"consecutiveFailures\":0");
            HttpResponse<String> streamed = RawHttp.post(gw.port(), CHAT, chat("short", 2, true));
            assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
        }
    }

    private static String chat(String content, int maxTokens, boolean stream) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}";
    }

    private static Policy policy(List<URI> urls, String firstByte) {
        return GatewayFixture.basePolicy("""
                backends:
                  - name: main
                    urls: [%s]
                    model_version: "llama@1"
                    health: {interval: 1s, failures_to_eject: 3, eject_for: 30s}
                    timeouts: {connect: 500ms, first_byte: %s, idle: 5s, total: 30s}
                """.formatted(urls.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", ")), firstByte));
    }
}
