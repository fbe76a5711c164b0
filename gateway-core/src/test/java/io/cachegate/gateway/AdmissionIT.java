package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Admission control through the gateway: a backend of 2 concurrent requests per replica, requests that each take
 * a few hundred milliseconds, and more traffic than it can take. Batch is turned away early with 429 and
 * Retry-After while interactive requests wait their turn and are served; cache hits skip the queue; a client
 * that leaves while queued leaves the queue.
 */
class AdmissionIT {

    private static final String CHAT = "/v1/chat/completions";

    @Test
    void overload_batchGets429WithRetryAfter_whileInteractiveIsServed() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(300).withTpotMs(1));
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim)));
             Clients clients = new Clients(Executors.newFixedThreadPool(40))) {
            List<Future<HttpResponse<String>>> batch = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                int n = i;
                batch.add(clients.pool().submit(() -> RawHttp.post(gw.port(), CHAT, sampled("batch job " + n),
                        "X-Priority", "batch")));
            }
            Thread.sleep(100); // the batch flood is queued or turned away before the interactive users arrive
            List<Future<HttpResponse<String>>> interactive = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int n = i;
                interactive.add(clients.pool().submit(() -> RawHttp.post(gw.port(), CHAT, sampled("user question " + n))));
            }

            for (Future<HttpResponse<String>> f : interactive) {
                HttpResponse<String> response = f.get(60, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            }
            int rejected = 0;
            int early = 0;
            for (Future<HttpResponse<String>> f : batch) {
                HttpResponse<String> response = f.get(60, TimeUnit.SECONDS);
                if (response.statusCode() == 200) {
                    continue;
                }
                rejected++;
                String code = json(response.body()).path("error").path("code").asText();
                if (response.statusCode() == 429) {
                    early++;
                    assertThat(code).isIn("queue_full", "queue_wait_too_long", "class_paused_in_overload");
                } else {
                    // Queued, then outwaited its 1 s while interactive requests went first.
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
                    assertThat(code).isEqualTo("queue_timeout");
                }
                assertThat(response.headers().firstValue("Retry-After").map(Long::parseLong).orElse(0L))
                        .isBetween(1L, 60L);
            }
            assertThat(early).as("batch requests turned away on arrival with 429").isPositive();
            assertThat(metric(gw, "cachegate_admission_rejections_total", "class=\"batch\"")).isEqualTo(rejected);
            assertThat(metric(gw, "cachegate_admission_rejections_total", "class=\"interactive\"")).isZero();
            assertThat(metric(gw, "cachegate_queue_wait_seconds_count", "class=\"interactive\"")).isEqualTo(6);
        }
    }

    @Test
    void rejection_keepsTheKeepAliveConnection_forTheClientsNextRequest() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(300).withTpotMs(1));
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim)));
             Clients clients = new Clients(Executors.newFixedThreadPool(24))) {
            // Each flooder asks again as soon as it is answered, so the batch queue stays full however the machine
            // schedules the threads (one flood of 24 could drain, or be turned away, before the client below asked).
            AtomicBoolean flooding = new AtomicBoolean(true);
            for (int i = 0; i < 24; i++) {
                int n = i;
                clients.pool().submit(() -> {
                    for (int round = 0; flooding.get(); round++) {
                        RawHttp.post(gw.port(), CHAT, sampled("flood " + n + " " + round), "X-Priority", "batch");
                    }
                    return null;
                });
            }
            try (Socket socket = RawHttp.connect(gw.port())) {
                OutputStream out = socket.getOutputStream();
                RawHttp.Response answer = null;
                // One client on one connection: its batch requests are turned away while the flood fills the queue.
                for (int i = 0; i < 20 && (answer == null || answer.status() != 429); i++) {
                    out.write(RawHttp.rawPost(CHAT, sampled("own " + i).getBytes(StandardCharsets.UTF_8),
                            "X-Priority: batch"));
                    out.flush();
                    answer = RawHttp.read(socket.getInputStream());
                }
                assertThat(answer.status()).as("a batch request turned away").isEqualTo(429);
                assertThat(answer.headers()).containsKey("retry-after").doesNotContainEntry("connection", "close");

                out.write(RawHttp.rawPost(CHAT, sampled("after the 429").getBytes(StandardCharsets.UTF_8)));
                out.flush();
                assertThat(RawHttp.read(socket.getInputStream()).status()).as("the same connection answers again")
                        .isIn(200, 429, 503);
            } finally {
                flooding.set(false);
            }
        }
    }

    @Test
    void cacheHit_skipsTheQueue() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(300).withTpotMs(1));
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim)));
             Clients clients = new Clients(Executors.newFixedThreadPool(8))) {
            String cached = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"cached answer\"}]}";
            assertThat(RawHttp.post(gw.port(), CHAT, cached).statusCode()).isEqualTo(200);
            double dispatched = metric(gw, "cachegate_admission_dispatched_total");
            List<Future<HttpResponse<String>>> busy = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int n = i;
                busy.add(clients.pool().submit(() -> RawHttp.post(gw.port(), CHAT, sampled("keep busy " + n))));
            }

            HttpResponse<String> hit = RawHttp.post(gw.port(), CHAT, cached);

            assertThat(hit.headers().firstValue("X-Cache")).contains("HIT");
            for (Future<HttpResponse<String>> f : busy) {
                assertThat(f.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(metric(gw, "cachegate_admission_dispatched_total") - dispatched).as("only the misses")
                    .isEqualTo(4);
            var stats = json(RawHttp.get(gw.adminPort(), "/admin/stats").body());
            assertThat(stats.path("admission").path("main").path("dispatched").asLong()).isEqualTo(5);
            assertThat(stats.path("admission").path("main").path("classes").path("batch").path("queued").asInt()).isZero();
            assertThat(stats.path("replicas").path("main").path(0).path("state").asText()).isEqualTo("CLOSED");
        }
    }

    @Test
    void clientLeavingWhileQueued_leavesTheQueue() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(1500).withTpotMs(1));
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sim)));
             Clients clients = new Clients(Executors.newFixedThreadPool(4))) {
            List<Future<HttpResponse<String>>> busy = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int n = i;
                busy.add(clients.pool().submit(() -> RawHttp.post(gw.port(), CHAT, sampled("occupy " + n))));
            }
            assertThat(Poll.until(Duration.ofSeconds(10), () -> sim.stats().active() == 2)).isTrue();

            try (Socket socket = RawHttp.connect(gw.port())) {
                byte[] body = sampled("leaves while queued").getBytes(StandardCharsets.UTF_8);
                OutputStream out = socket.getOutputStream();
                out.write(RawHttp.rawPost(CHAT, body));
                out.flush();
                assertThat(Poll.until(Duration.ofSeconds(10), () -> queued(gw) == 1)).as("queued").isTrue();
            }

            assertThat(Poll.until(Duration.ofSeconds(10), () -> queued(gw) == 0)).as("left the queue").isTrue();
            for (Future<HttpResponse<String>> f : busy) {
                assertThat(f.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(sim.stats().requests()).as("the queued request never reached the backend").isEqualTo(2);
        }
    }

    @Test
    void overload_degradableClassGoesToTheFallbackModel() throws Exception {
        try (BackendSimulator slow = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(400).withTpotMs(1));
             BackendSimulator small = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.basePolicy("""
                     backends:
                       - {name: main, urls: ["%s"], models: ["llama-3.1-8b"], model_version: "llama@1", max_concurrency: 1}
                       - {name: small, urls: ["%s"], models: ["*"], model_version: "small@1"}
                     classes:
                       interactive: {priority: 0, max_queue_time: 30s, may_degrade: true}
                     admission:
                       enabled: true
                       overload: {enter_queue_age: 100ms, exit_queue_age: 10ms, enter_after: 0s, exit_after: 30s}
                     routes:
                       - match: {model: "llama-3.1-8b"}
                         backend: main
                         fallback: small
                         fallback_model: qwen2.5-0.5b
                     """.formatted(slow.baseUrl(), small.baseUrl())));
             Clients clients = new Clients(Executors.newFixedThreadPool(8))) {
            List<Future<HttpResponse<String>>> flood = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int n = i;
                flood.add(clients.pool().submit(() -> RawHttp.post(gw.port(), CHAT, sampled("flood " + n))));
            }
            assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                    metric(gw, "cachegate_admission_overloaded") == 1))
                    .as("overload mode entered").isTrue();

            HttpResponse<String> degraded = RawHttp.post(gw.port(), CHAT, sampled("while overloaded"));

            assertThat(degraded.statusCode()).isEqualTo(200);
            assertThat(degraded.headers().firstValue("X-Cachegate-Model")).contains("qwen2.5-0.5b");
            assertThat(metric(gw, "cachegate_fallbacks_total", "reason=\"degraded\"")).isEqualTo(1);
            for (Future<HttpResponse<String>> f : flood) {
                HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
            }
        }
    }

    /** The client threads of a test; Java 17's executors are not AutoCloseable. */
    private record Clients(ExecutorService pool) implements AutoCloseable {
        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    private static double queued(Gateway gw) {
        try {
            return metric(gw, "cachegate_queue_depth", "class=\"interactive\"");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sampled(String prompt) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"max_tokens\":20,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + prompt + "\"}]}";
    }

    /**
     * One replica taking 2 requests at a time. Interactive may wait 30 s; batch at most 1 s, which at the assumed
     * drain rate of 50 tokens/s is about two requests' worth of queue.
     */
    private static String policy(BackendSimulator sim) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2}
                backends:
                  - name: main
                    urls: ["%s"]
                    model_version: "llama@1"
                    max_concurrency: 2
                    timeouts: {connect: 1s, first_byte: 20s, idle: 20s, total: 60s}
                classes:
                  interactive: {priority: 0, max_queue_time: 30s}
                  batch: {priority: 2, max_queue_time: 1s, pausable: true}
                admission:
                  enabled: true
                  initial_drain_rate: 50
                """.formatted(sim.baseUrl());
    }
}
