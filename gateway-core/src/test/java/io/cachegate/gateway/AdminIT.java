package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin listener: health, readiness, Prometheus metrics and the token-protected stats. */
class AdminIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {admin_token: secret}
            """);

    @Test
    void health_is200WithoutToken() throws Exception {
        HttpResponse<String> response = RawHttp.get(fixture.adminPort(), "/health");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("ok");
    }

    @Test
    void ready_is200OnceBackendProbed() throws Exception {
        assertThat(Poll.until(Duration.ofSeconds(10), () -> status(fixture.adminPort(), "/ready") == 200)).isTrue();
        HttpResponse<String> response = RawHttp.get(fixture.adminPort(), "/ready");
        // Without a token /ready is a status only; the backends and the policy are behind it, in /admin/stats.
        assertThat(response.body()).contains("\"ready\":true").doesNotContain(fixture.sim().baseUrl().toString())
                .doesNotContain("\"policy\"").doesNotContain("backends");
        HttpResponse<String> stats = RawHttp.get(fixture.adminPort(), "/admin/stats", "Authorization", "Bearer secret");
        assertThat(stats.body()).contains(fixture.sim().baseUrl().toString()).contains("\"policy\"");
    }

    @Test
    void ready_is503WithDeadBackend() throws Exception {
        URI dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        String yaml = TestPolicies.yaml(List.of(fixture.sim().baseUrl()), "2s", "", """
                  - name: spare
                    urls: ["%s"]
                    models: ["never-*"]
                """.formatted(dead));
        try (Gateway gw = Gateway.start(TestPolicies.parse(yaml))) {
            // Wait for the probe round that found the live backend; the dead one was probed in the same round.
            String live = "\"" + fixture.sim().baseUrl() + "\":true";
            assertThat(Poll.until(Duration.ofSeconds(10), () -> body(gw.adminPort(), "/admin/stats").contains(live)))
                    .isTrue();
            HttpResponse<String> response = RawHttp.get(gw.adminPort(), "/ready");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("\"ready\":false");
        }
    }

    @Test
    void metrics_countRequestsWithTagsAndJvm() throws Exception {
        HttpResponse<String> ok = RawHttp.post(fixture.port(), "/v1/chat/completions",
                "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}");
        assertThat(ok.statusCode()).isEqualTo(200);

        HttpResponse<String> metrics = RawHttp.get(fixture.adminPort(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).get().asString().startsWith("text/plain");
        assertThat(metrics.body().lines().filter(l -> l.startsWith("cachegate_requests_total{")))
                .anySatisfy(l -> assertThat(l).contains("endpoint=\"chat\"").contains("route=\"0\"")
                        .contains("status=\"200\""));
        assertThat(metrics.body()).contains("jvm_memory_used_bytes").contains("cachegate_request_duration_seconds");
    }

    @Test
    void metrics_labelANamedRouteByItsName() throws Exception {
        String yaml = TestPolicies.yaml(List.of(fixture.sim().baseUrl()), "2s", "", """
                routes:
                  - { match: { model: "never-*" } }
                  - { name: chat-main, match: { model: "*" } }
                """);
        try (Gateway gw = Gateway.start(TestPolicies.parse(yaml))) {
            HttpResponse<String> ok = RawHttp.post(gw.port(), "/v1/chat/completions",
                    "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                            + "\"max_tokens\":2}");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(body(gw.adminPort(), "/metrics").lines()
                    .filter(l -> l.startsWith("cachegate_requests_total{")))
                    .as("labelled by its name, not its index 1")
                    .anySatisfy(l -> assertThat(l).contains("route=\"chat-main\""))
                    .noneSatisfy(l -> assertThat(l).contains("route=\"1\""));
        }
    }

    @Test
    void adminStats_needsToken() throws Exception {
        HttpResponse<String> without = RawHttp.get(fixture.adminPort(), "/admin/stats");
        assertThat(without.statusCode()).isEqualTo(401);
        assertThat(without.body()).contains("\"error\"");

        HttpResponse<String> wrong = RawHttp.get(fixture.adminPort(), "/admin/stats", "Authorization", "Bearer nope");
        assertThat(wrong.statusCode()).isEqualTo(401);

        HttpResponse<String> with = RawHttp.get(fixture.adminPort(), "/admin/stats", "Authorization", "Bearer secret");
        assertThat(with.statusCode()).isEqualTo(200);
        assertThat(with.body()).contains("\"inFlight\"").contains("\"backends\"");

        assertThat(status(fixture.adminPort(), "/admin/series")).isEqualTo(401);
        assertThat(RawHttp.get(fixture.adminPort(), "/admin/series", "Authorization", "Bearer secret").body())
                .startsWith("{\"points\":[");
    }

    @Test
    void statusPageFiles_needNoToken_andHoldNoData() throws Exception {
        HttpResponse<String> page = RawHttp.get(fixture.adminPort(), "/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("/status/status.js").doesNotContain("policy.yaml").doesNotContain("http://");
        assertThat(status(fixture.adminPort(), "/status/status.js")).isEqualTo(200);
        assertThat(RawHttp.get(fixture.adminPort(), "/status/uPlot.iife.min.js").body()).contains("uPlot");
        assertThat(status(fixture.adminPort(), "/status/other.js")).isEqualTo(404);
    }

    @Test
    void openEndpoints_needNoToken() throws Exception {
        assertThat(status(fixture.adminPort(), "/health")).isEqualTo(200);
        assertThat(status(fixture.adminPort(), "/metrics")).isEqualTo(200);
        assertThat(status(fixture.adminPort(), "/ready")).isIn(200, 503);
    }

    @Test
    void purge_allAsAString_is400BeforeAnythingIsPurged() throws Exception {
        // Before, the string "true" was read as true and everything was purged (200 with the count).
        HttpResponse<String> purge = RawHttp.post(fixture.adminPort(), "/admin/purge", "{\"all\": \"true\"}",
                "Authorization", "Bearer secret");

        assertThat(purge.statusCode()).isEqualTo(400);
        assertThat(purge.body()).contains("\"type\":\"invalid_request_error\"")
                .contains("'all' must be true or false (a JSON boolean), not a string").doesNotContain("purged");
    }

    @Test
    void unknownAdminPath_is404() throws Exception {
        assertThat(status(fixture.adminPort(), "/nope")).isEqualTo(404);
    }

    private static String body(int port, String path) {
        try {
            return RawHttp.get(port, path).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int status(int port, String path) {
        try {
            return RawHttp.get(port, path).statusCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
