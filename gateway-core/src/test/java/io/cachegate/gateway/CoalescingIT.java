package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Concurrent identical misses share one backend call. The simulator is slow (time to first token
 * and per token) so the leader is still generating when the others arrive.
 */
class CoalescingIT {

    private static final int CONCURRENT = 100;
    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            .withSimulator(SimulatorOptions.defaults().withTtftMs(700).withTpotMs(4).withDefaultMaxTokens(64))
            .policy(ExactCacheIT.policy("memory", ""));
    private static ExecutorService executor;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        executor = Executors.newFixedThreadPool(16);
        // HTTP/1.1 without a pool limit: one connection per request in flight.
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.port() + CHAT))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer acme-key")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static List<HttpResponse<String>> sendAll(String body, int count) {
        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(send(body));
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }

    @Test
    void concurrentIdenticalColdRequests_nonStreaming_oneBackendCall() throws Exception {
        String body = chat("coalesce me " + nonce());
        long before = fixture.sim().stats().requests();
        double coalesced = metric(fixture.gateway(), "cachegate_cache_coalesced_total");

        List<HttpResponse<String>> responses = sendAll(body, CONCURRENT);

        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);
        String expected = content(responses.get(0).body());
        assertThat(expected).isNotBlank();
        for (HttpResponse<String> r : responses) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(xCache(r)).isIn("MISS", "HIT");
            assertThat(content(r.body())).isEqualTo(expected);
        }
        long followers = responses.stream().filter(r -> r.headers().firstValue("X-Cache-Coalesced").isPresent()).count();
        assertThat(followers).as("requests that arrived while the leader generated").isGreaterThan(CONCURRENT / 2);
        assertThat(metric(fixture.gateway(), "cachegate_cache_coalesced_total") - coalesced).isEqualTo(followers);
        assertThat(xCache(RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer acme-key"))).isEqualTo("HIT");
        assertThat(Poll.until(Duration.ofSeconds(5), () -> fixture.gateway().metrics().inFlight() == 0)).isTrue();
        List<String> leaders = responses.stream()
                .filter(r -> xCache(r).equals("MISS") && r.headers().firstValue("X-Cache-Coalesced").isEmpty())
                .map(r -> header(r, "X-Request-Id")).toList();
        assertThat(leaders).as("one request generated").hasSize(1);
        assertThat(responses.stream().filter(r -> !leaders.contains(header(r, "X-Request-Id")))
                .map(r -> header(r, "X-Cache-Origin-Request-Id")).distinct())
                .as("followers and hits name the request that generated their answer").containsExactly(leaders.get(0));
    }

    @Test
    void concurrentIdenticalColdRequests_streaming_oneBackendCall() throws Exception {
        String body = chat("coalesce my stream " + nonce(), "\"stream\":true");
        long before = fixture.sim().stats().requests();

        List<HttpResponse<String>> responses = sendAll(body, CONCURRENT);

        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);
        String expected = streamedContent(responses.get(0).body());
        assertThat(expected).isNotBlank();
        for (HttpResponse<String> r : responses) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("text/event-stream");
            assertThat(r.body()).endsWith("data: [DONE]\n\n");
            assertThat(streamedContent(r.body())).isEqualTo(expected);
        }
        assertThat(responses.stream().filter(r -> r.headers().firstValue("X-Cache-Coalesced").isPresent()).count())
                .isGreaterThan(CONCURRENT / 2);
        HttpResponse<String> hit = RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(streamedContent(hit.body())).isEqualTo(expected);
    }

    @Test
    void concurrentStreamingAndJsonRequests_eachGetTheirOwnForm() throws Exception {
        String prompt = "two forms " + nonce();
        String streaming = chat(prompt, "\"stream\":true,\"stream_options\":{\"include_usage\":true}");
        String plainStream = chat(prompt, "\"stream\":true");
        String json = chat(prompt);
        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            futures.add(send(i % 3 == 0 ? streaming : i % 3 == 1 ? plainStream : json));
        }
        for (int i = 0; i < futures.size(); i++) {
            HttpResponse<String> r = futures.get(i).join();
            assertThat(r.statusCode()).isEqualTo(200);
            String type = r.headers().firstValue("Content-Type").orElse("");
            if (i % 3 == 2) {
                assertThat(type).as("a JSON request never gets a stream").startsWith("application/json");
                assertThat(content(r.body())).isNotBlank();
            } else {
                assertThat(type).startsWith("text/event-stream");
                boolean usage = CacheCalls.events(r.body()).stream().anyMatch(e -> e.path("usage").isObject());
                assertThat(usage).as("usage chunk only when asked for").isEqualTo(i % 3 == 0);
            }
        }
    }

    @Test
    void leaderClientLeavesBeforeAnswer_followersStillServedByTheSameCall() throws Exception {
        leaderLeaves(0);
    }

    @Test
    void leaderClientLeavesMidStream_followersStillServedByTheSameCall() throws Exception {
        leaderLeaves(3);
    }

    /** The leader's client reads {@code events} SSE events, then disconnects while followers wait. */
    private void leaderLeaves(int events) throws Exception {
        String body = chat("leader leaves " + events + " " + nonce(), "\"stream\":true");
        long before = fixture.sim().stats().requests();
        long cancelledBefore = fixture.sim().stats().cancelled();
        double coalesced = metric(fixture.gateway(), "cachegate_cache_coalesced_total");
        List<CompletableFuture<HttpResponse<String>>> followers = new ArrayList<>();
        try (Socket leader = RawHttp.connect(fixture.port())) {
            leader.getOutputStream().write(RawHttp.rawPost(CHAT, body.getBytes(StandardCharsets.UTF_8),
                    "Authorization: Bearer acme-key"));
            assertThat(Poll.until(Duration.ofSeconds(5), () -> fixture.sim().stats().requests() - before == 1)).isTrue();
            for (int i = 0; i < 5; i++) {
                followers.add(send(body));
            }
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () ->
                    metric(fixture.gateway(), "cachegate_cache_coalesced_total") - coalesced == 5))
                    .as("the followers joined the leader").isTrue();
            if (events > 0) {
                InputStream in = leader.getInputStream();
                int seen = 0;
                String line;
                while (seen < events && (line = RawHttp.line(in)) != null) {
                    if (line.startsWith("data: {")) {
                        seen++;
                    }
                }
                assertThat(seen).isEqualTo(events);
            }
        }
        List<String> texts = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : followers) {
            HttpResponse<String> r = f.join();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).endsWith("data: [DONE]\n\n");
            texts.add(streamedContent(r.body()));
        }
        assertThat(texts).allMatch(t -> t.equals(texts.get(0)));
        assertThat(texts.get(0)).isNotBlank();
        assertThat(fixture.sim().stats().requests() - before).as("the leader's call went on for its followers").isEqualTo(1);
        assertThat(fixture.sim().stats().cancelled()).isEqualTo(cancelledBefore);
        assertThat(Poll.until(Duration.ofSeconds(5), () -> fixture.gateway().metrics().inFlight() == 0)).isTrue();
    }
}
