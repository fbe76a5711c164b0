package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Live policy reload: the gateway watches its policy file (written the way a Kubernetes ConfigMap update writes
 * it, by swapping a file into place) and reloads on {@code POST /admin/reload}. Under a steady stream of hits,
 * misses and streamed requests, reloads every 200 ms fail no request; a new tenant key works, a removed one gets
 * 401 and a changed route threshold decides, each within a second; an invalid policy is refused and counted
 * while the running one stays.
 */
class PolicyReloadIT {

    private static final String PASSWORD = "How do I reset my password?";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().watched()
            .policy(policy(List.of("load-key"), 0.999));

    /** A policy with tenant acme holding {@code keys}; the semantic route's threshold is {@code threshold}. */
    private static String policy(List<String> keys, double threshold) {
        return policy(keys, threshold, 64);
    }

    /** As above, with the backend's connection pool per URL: another value rebuilds backends and admission queues. */
    private static String policy(List<String> keys, double threshold, int connections) {
        return """
                backends:
                  - {name: main, max_connections_per_url: %d}
                admission: {enabled: true}
                tenants:
                  - {id: acme, api_keys: [%s]}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "${DIR}/index", ttl: 1h, decision: cosine}
                routes:
                  - match: {model: "qwen2.5-0.5b"}
                    cache: {semantic: true, threshold: %s}
                  - match: {model: "*"}
                    cache: {semantic: false}
                """.formatted(connections, String.join(", ", keys), threshold);
    }

    /** Writes the policy the way a ConfigMap update does: a new file swapped into place, never a partial write. */
    private static void write(String sections) throws Exception {
        fixture.rewrite(sections);
    }

    private static HttpResponse<String> chat(String key, String model, String system, String question, String extra)
            throws Exception {
        String body = "{\"model\":\"" + model + "\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]" + extra + "}";
        return RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer " + key);
    }

    /** Milliseconds until {@code condition} held, failing past {@code limit}. */
    private static long within(Duration limit, BooleanSupplier condition) throws Exception {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - start).as("took effect within " + limit).isLessThan(limit.toNanos());
            Thread.sleep(20);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static int status(String key) {
        try {
            return chat(key, "llama-3.1-8b", "keys", "ping " + nonce(), "").statusCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean writesSettled() {
        return Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(fixture.gateway(), "cachegate_semantic_writes_pending") == 0);
    }

    @Test
    void reloadsEvery200ms_underSteadyLoad_failNoRequest() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            int client = c;
            Thread thread = new Thread(() -> {
                int i = 0;
                while (running.get()) {
                    // hits (a repeated question), misses (new ones) and streamed answers, in turn
                    String question = switch (i++ % 3) {
                        case 0 -> "the repeated question";
                        case 1 -> "a new question " + nonce();
                        default -> "a streamed question " + client + " " + (i % 7);
                    };
                    String extra = i % 3 == 2 ? ",\"stream\":true" : "";
                    try {
                        HttpResponse<String> r = chat("load-key", "llama-3.1-8b", "load", question, extra);
                        sent.incrementAndGet();
                        if (r.statusCode() != 200 || (!extra.isEmpty() && !r.body().contains("[DONE]"))) {
                            failures.add(r.statusCode() + " " + r.body());
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }, "reload-load-" + c);
            thread.start();
            clients.add(thread);
        }
        long before = fixture.gateway().policyGeneration();
        int reloads = 0;
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < end) {
            // Alternate valid policies (tenant keys; every fourth also the backends, which rebuilds replica sets and
            // admission queues); every other change is also announced through the admin API.
            write(policy(reloads % 2 == 0 ? List.of("load-key", "spare-key") : List.of("load-key"), 0.999,
                    reloads % 4 < 2 ? 64 : 32));
            if (reloads % 2 == 1) {
                RawHttp.post(fixture.adminPort(), "/admin/reload", "");
            }
            reloads++;
            Thread.sleep(200);
        }
        running.set(false);
        for (Thread t : clients) {
            t.join();
        }
        long applied = fixture.gateway().policyGeneration() - before;
        System.out.printf("reload under load: %d requests sent, %d failed, %d policy writes, %d reloads applied%n",
                sent.get(), failures.size(), reloads, applied);
        assertThat(failures).as("failed requests").isEmpty();
        assertThat(sent.get()).isGreaterThan(100);
        assertThat(applied).as("reloads applied").isGreaterThanOrEqualTo(reloads / 2);
    }

    @Test
    void tenantKeys_addedAndRemoved_takeEffectWithinOneSecond() throws Exception {
        write(policy(List.of("load-key"), 0.999));
        within(Duration.ofSeconds(3), () -> status("new-key") == 401);

        write(policy(List.of("load-key", "new-key"), 0.999));
        long added = within(Duration.ofSeconds(1), () -> status("new-key") == 200);

        write(policy(List.of("load-key"), 0.999));
        long removed = within(Duration.ofSeconds(1), () -> status("new-key") == 401);

        System.out.printf("new key accepted after %d ms, removed key refused after %d ms%n", added, removed);
        assertThat(status("load-key")).isEqualTo(200);
    }

    /** A reload starts the fast path's memo afresh: a repeat is parsed again, under the new limits. */
    @Test
    void repeatedBody_afterAReloadTighteningJsonLimits_isParsedAgainAndRefused() throws Exception {
        write(policy(List.of("load-key"), 0.999));
        within(Duration.ofSeconds(3), () -> status("load-key") == 200);
        String question = "a question longer than the new string limit, " + nonce() + " " + "x".repeat(40);
        assertThat(chat("load-key", "llama-3.1-8b", "limits", question, "").statusCode()).isEqualTo(200);
        assertThat(xCache(chat("load-key", "llama-3.1-8b", "limits", question, ""))).isEqualTo("HIT");

        write(policy(List.of("load-key"), 0.999) + "server: {json: {max_string_length: 64}}\n");
        long took = within(Duration.ofSeconds(2), () -> {
            try {
                return chat("load-key", "llama-3.1-8b", "limits", question, "").statusCode() == 400;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        System.out.printf("the same bytes refused under the new limit after %d ms%n", took);
        write(policy(List.of("load-key"), 0.999));
    }

    @Test
    void backendsRebuilt_admissionMetricsReadTheNewGeneration() throws Exception {
        write(policy(List.of("load-key"), 0.999, 64));
        within(Duration.ofSeconds(3), () -> status("load-key") == 200);
        long generation = fixture.gateway().policyGeneration();
        write(policy(List.of("load-key"), 0.999, 48)); // another pool size rebuilds the backend and its queues
        within(Duration.ofSeconds(3), () -> fixture.gateway().policyGeneration() > generation);
        double before = metric(fixture.gateway(), "cachegate_admission_dispatched_total", "backend=\"main\"");

        for (int i = 0; i < 5; i++) {
            assertThat(status("load-key")).isEqualTo(200);
        }

        assertThat(metric(fixture.gateway(), "cachegate_admission_dispatched_total", "backend=\"main\"") - before)
                .as("dispatches of the rebuilt backend's controller").isEqualTo(5);
        assertThat(metric(fixture.gateway(), "cachegate_admission_overloaded", "backend=\"main\"")).isZero();
        assertThat(metric(fixture.gateway(), "cachegate_queue_depth", "backend=\"main\"")).isZero();
    }

    @Test
    void routeThreshold_changed_decidesTheNextMatchWithinOneSecond() throws Exception {
        String system = "support bot " + nonce();
        write(policy(List.of("load-key"), 0.999));
        within(Duration.ofSeconds(3), () -> fixture.gateway().policyGeneration() > 0 && status("load-key") == 200);
        assertThat(chat("load-key", "qwen2.5-0.5b", system, PASSWORD, "").statusCode()).isEqualTo(200);
        assertThat(writesSettled()).isTrue();
        assertThat(xCache(chat("load-key", "qwen2.5-0.5b", system, "How can I reset my password?", "")))
                .as("similar, but under a threshold of 0.999").isEqualTo("MISS");
        assertThat(writesSettled()).isTrue();

        write(policy(List.of("load-key"), 0.80));
        long took = within(Duration.ofSeconds(1), () -> {
            try {
                return xCache(chat("load-key", "qwen2.5-0.5b", system, "How could I reset my password?", ""))
                        .equals("HIT");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        System.out.printf("lower route threshold matched after %d ms%n", took);
    }

    @Test
    void aNamedRoute_keepsItsSeries_whenAReloadPutsARouteAboveIt() throws Exception {
        String named = policy(List.of("load-key"), 0.999).replace("  - match: {model: \"qwen2.5-0.5b\"}",
                "  - name: qwen-support\n    match: {model: \"qwen2.5-0.5b\"}");
        long loaded = fixture.gateway().policyGeneration();
        write(named);
        within(Duration.ofSeconds(3), () -> fixture.gateway().policyGeneration() > loaded && status("load-key") == 200);
        long generation = fixture.gateway().policyGeneration();
        assertThat(chat("load-key", "qwen2.5-0.5b", "labels " + nonce(), PASSWORD, "").statusCode()).isEqualTo(200);
        String series = "route=\"qwen-support\"";
        within(Duration.ofSeconds(2), () -> requests(series) >= 1);
        double before = requests(series);

        write(named.replace("routes:\n", "routes:\n  - match: {model: \"never-*\"}\n")); // it moves to index 1
        within(Duration.ofSeconds(3), () -> fixture.gateway().policyGeneration() > generation);
        double indexOne = requests("route=\"1\""); // the catch-all's series before the reload moved it to 2
        assertThat(chat("load-key", "qwen2.5-0.5b", "labels " + nonce(), PASSWORD, "").statusCode()).isEqualTo(200);
        within(Duration.ofSeconds(2), () -> requests(series) == before + 1);
        assertThat(requests("route=\"1\"")).as("nothing counted under its new index").isEqualTo(indexOne);
    }

    private static double requests(String... labels) {
        try {
            return metric(fixture.gateway(), "cachegate_requests_total", labels);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void invalidPolicy_isRefused_andTheRunningOneStays() throws Exception {
        write(policy(List.of("load-key"), 0.999));
        within(Duration.ofSeconds(3), () -> status("load-key") == 200);
        double rejectedBefore = metric(fixture.gateway(), "cachegate_policy_reloads_total", "outcome=\"rejected\"");
        long generation = fixture.gateway().policyGeneration();

        write(policy(List.of("load-key"), 0.999).replace("ttl: 1h}", "ttl: an hour}"));
        HttpResponse<String> reload = RawHttp.post(fixture.adminPort(), "/admin/reload", "");

        assertThat(reload.statusCode()).isEqualTo(422);
        assertThat(reload.body()).contains("rejected").contains("policy.yaml:").contains("cache.exact.ttl");
        assertThat(fixture.gateway().policyGeneration()).isEqualTo(generation);
        assertThat(status("load-key")).isEqualTo(200);
        assertThat(metric(fixture.gateway(), "cachegate_policy_reloads_total", "outcome=\"rejected\""))
                .isGreaterThan(rejectedBefore);
        write(policy(List.of("load-key"), 0.999));
        within(Duration.ofSeconds(2), () -> fixture.gateway().policyGeneration() > generation);
    }

    @Test
    void reloadRemovingTheAdminToken_offLoopback_isRefused() throws Exception {
        Path file = fixture.dir().resolve("exposed.yaml");
        String yaml = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, admin_host: %s, admin_token: "%s"}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                """;
        Files.writeString(file, yaml.formatted("0.0.0.0", "secret-admin-token", fixture.sim().baseUrl()));
        try (Gateway exposed = Gateway.start(TestPolicies.parse(Files.readString(file)), file)) {
            // Valid on its own (loopback needs no token), but the listener stays on 0.0.0.0 until a restart.
            Files.writeString(file, yaml.formatted("127.0.0.1", "", fixture.sim().baseUrl()));
            HttpResponse<String> reload = RawHttp.post(exposed.adminPort(), "/admin/reload", "",
                    "Authorization", "Bearer secret-admin-token");

            assertThat(reload.statusCode()).isEqualTo(422);
            assertThat(reload.body()).contains("admin_token").doesNotContain("secret-admin-token");
            assertThat(exposed.policyGeneration()).isEqualTo(1);
            assertThat(RawHttp.get(exposed.adminPort(), "/admin/stats").statusCode())
                    .as("the running token still guards the admin API").isEqualTo(401);
        }
    }

    @Test
    void reloadOpeningTheAdminListenerWithoutToken_isRefused_likeValidateAndServe() throws Exception {
        // Running on loopback, the file moves the admin listener to the network without a token. The move itself
        // waits for a restart, and that restart would refuse the file: so the reload refuses it now.
        Path file = fixture.dir().resolve("opening.yaml");
        String yaml = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, admin_host: %s %s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                """;
        Files.writeString(file, yaml.formatted("127.0.0.1,", "admin_token: tok", fixture.sim().baseUrl()));
        try (Gateway loopback = Gateway.start(TestPolicies.parse(Files.readString(file)), file)) {
            Files.writeString(file, yaml.formatted("0.0.0.0", "", fixture.sim().baseUrl()));
            HttpResponse<String> reload = RawHttp.post(loopback.adminPort(), "/admin/reload", "",
                    "Authorization", "Bearer tok");

            assertThat(reload.statusCode()).isEqualTo(422);
            assertThat(reload.body()).contains("server.admin_host: 0.0.0.0 is not a loopback address");
            assertThat(loopback.policyGeneration()).isEqualTo(1);
            assertThat(RawHttp.get(loopback.adminPort(), "/admin/stats").statusCode())
                    .as("the running token still guards the admin API").isEqualTo(401);
        }
    }
}
