package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.metric;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fair shares between the tenants of one class, through the gateway: a backend taking one request at a time, tenant
 * {@code noisy} queueing twelve requests, then tenant {@code quiet} one. In fair order the quiet tenant's request
 * is among the first served after it arrives; first come, first served, it waits for the whole backlog.
 */
class FairShareIT {

    private static final String CHAT = "/v1/chat/completions";

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aQuietTenant_isServedBetweenANoisyTenantsRequests_onlyInFairOrder(boolean fair) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(150).withTpotMs(1));
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim, fair)))) {
            List<String> finished = Collections.synchronizedList(new ArrayList<>());
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                calls.add(send(pool, gw, "noisy", "question " + i, finished));
                Thread.sleep(10); // arrivals spread over time, not all at once
            }
            Thread.sleep(200); // the noisy backlog is queued
            calls.add(send(pool, gw, "quiet", "question q", finished));
            for (Future<HttpResponse<String>> f : calls) {
                HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }

            int quietPlace = finished.indexOf("quiet");
            if (fair) {
                assertThat(quietPlace).as("finished order " + finished).isLessThanOrEqualTo(4);
                assertThat(metric(gw, "cachegate_tenant_queue_wait_seconds_count", "tenant=\"quiet\"")).isEqualTo(1);
                assertThat(metric(gw, "cachegate_tenant_queue_wait_seconds_count", "tenant=\"noisy\"")).isEqualTo(12);
            } else {
                assertThat(quietPlace).as("finished order " + finished).isEqualTo(12);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Future<HttpResponse<String>> send(ExecutorService pool, Gateway gw, String tenant, String prompt,
                                                     List<String> finished) {
        return pool.submit(() -> {
            HttpResponse<String> r = RawHttp.post(gw.port(), CHAT, sampled(prompt), "Authorization",
                    "Bearer key-" + tenant);
            finished.add(tenant);
            return r;
        });
    }

    private static String sampled(String prompt) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"max_tokens\":20,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + prompt + "\"}]}";
    }

    private static String policy(BackendSimulator sim, boolean fair) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2}
                backends:
                  - name: main
                    urls: ["%s"]
                    model_version: "llama@1"
                    max_concurrency: 1
                    timeouts: {connect: 1s, first_byte: 20s, idle: 20s, total: 60s}
                tenants:
                  - { id: noisy, api_keys: [key-noisy] }
                  - { id: quiet, api_keys: [key-quiet] }
                classes:
                  interactive: {priority: 0, max_queue_time: 30s}
                admission:
                  enabled: true
                  fair_share: %s
                """.formatted(sim.baseUrl(), fair);
    }
}
