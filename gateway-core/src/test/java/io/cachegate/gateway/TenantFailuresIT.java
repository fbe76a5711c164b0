package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import java.net.http.HttpResponse;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One tenant's failing requests do not take a replica away from the others. acme streams prompts so long that
 * the replicas' prefill outlasts first_byte (a timeout that counts against a replica); globex sends short ones.
 * With several tenants a replica is ejected on request failures only when two tenants' requests fail there.
 */
class TenantFailuresIT {

    private static final String CHAT = "/v1/chat/completions";

    @Test
    void oneTenantsTimeouts_leaveBothReplicasServingTheOther() throws Exception {
        // 1 ms of prefill per prompt token: acme's ~1500-token prompts take ~1.5 s before a first byte.
        SimulatorOptions options = SimulatorOptions.defaults().withPrefillMsPerToken(1);
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(2, options);
             Gateway gw = Gateway.start(GatewayFixture.basePolicy("""
                     backends:
                       - name: main
                         urls: [%s]
                         model_version: "llama@1"
                         health: {interval: 1m, failures_to_eject: 3, eject_for: 30s}  # probes out of the way
                         timeouts: {connect: 500ms, first_byte: 300ms, idle: 5s, total: 30s}
                     tenants:
                       - {id: acme, api_keys: [k-acme]}
                       - {id: globex, api_keys: [k-globex]}
                     """.formatted(sims.baseUrls().stream().map(u -> "\"" + u + "\"")
                     .collect(Collectors.joining(", ")))))) {
            String longPrompt = "word ".repeat(1500).strip();
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> failed = post(gw, "k-acme", longPrompt + " " + i, true);
                assertThat(failed.statusCode()).as(failed.body()).isEqualTo(504);
            }
            String stats = RawHttp.get(gw.adminPort(), "/admin/stats").body();
            assertThat(stats).as("8 timeouts of one tenant over two replicas (3 eject)").doesNotContain("\"OPEN\"");

            long servedA = sims.stats(0).completed();
            long servedB = sims.stats(1).completed();
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> ok = post(gw, "k-globex", "short " + i, false);
                assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            }
            assertThat(sims.stats(0).completed()).as("globex still served by replica 0").isGreaterThan(servedA);
            assertThat(sims.stats(1).completed()).as("globex still served by replica 1").isGreaterThan(servedB);
        }
    }

    private static HttpResponse<String> post(Gateway gw, String key, String content, boolean stream) throws Exception {
        return RawHttp.post(gw.port(), CHAT, "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"stream\":" + stream
                + ",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}",
                "Authorization", "Bearer " + key);
    }
}
