package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A semantic index that does not answer (Qdrant configured on a port where nothing listens), or an embedder
 * whose queue is full, costs the semantic layer, never a request: lookups and write-backs fail open and are
 * counted, the exact cache keeps working, and purges still purge the exact store.
 */
class SemanticFailOpenIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().env("DEAD_PORT", SemanticFailOpenIT::deadPort)
            .policy("""
            cache:
              semantic:
                enabled: true
                store: qdrant
                qdrant: {host: 127.0.0.1, port: "${DEAD_PORT}", timeout: 200ms}
            routes:
              - cache: {semantic: true}
            """);

    /** A port nothing listens on: Qdrant is down from the start. */
    private static String deadPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return String.valueOf(socket.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void indexDown_requestsAreServed_exactCacheStillHits_andFailuresAreCounted() throws Exception {
        String body = chat("What are your opening hours? " + nonce());

        HttpResponse<String> first = RawHttp.post(fixture.port(), CHAT, body);
        HttpResponse<String> second = RawHttp.post(fixture.port(), CHAT, body);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(xCache(second)).isEqualTo("HIT");
        assertThat(metric(fixture.gateway(), "cachegate_semantic_fail_open_total", "stage=\"search\"")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_cache_lookups_total", "layer=\"semantic\"", "outcome=\"error\"")).isPositive();
        assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                metric(fixture.gateway(), "cachegate_semantic_writes_total", "outcome=\"failed\"") > 0))
                .as("the write-back failed and was counted").isTrue();
    }

    @Test
    void embedderQueueFull_requestsAreServed_andTheRejectionsCounted(@TempDir Path index) throws Exception {
        try (Gateway small = Gateway.start(GatewayFixture.basePolicy("""
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                cache:
                  semantic:
                    enabled: true
                    path: "%s"
                    embedder: {queue_size: 1, workers: 1}
                routes:
                  - cache: {semantic: true}
                """.formatted(fixture.sim().baseUrl(), index.toString().replace('\\', '/'))));
             Clients clients = new Clients(Executors.newFixedThreadPool(16))) {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String body = chat("Question number " + i + " about the embedder " + nonce());
                answers.add(clients.pool().submit(() -> RawHttp.post(small.port(), CHAT, body)));
            }

            for (Future<HttpResponse<String>> answer : answers) {
                assertThat(answer.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(metric(small, "cachegate_semantic_embed_rejected_total")).as("a one-text queue overflowed")
                    .isPositive();
            assertThat(metric(small, "cachegate_semantic_fail_open_total", "stage=\"embed\"")).isPositive();
        }
    }

    /** The client threads of a test; Java 17's executors are not AutoCloseable. */
    private record Clients(ExecutorService pool) implements AutoCloseable {
        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    @Test
    void indexDown_purgeStillPurgesTheExactStore() throws Exception {
        String body = chat("purge me " + nonce());
        RawHttp.post(fixture.port(), CHAT, body);
        assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                xCache(RawHttp.post(fixture.port(), CHAT, body)).equals("HIT")))
                .isTrue();

        HttpResponse<String> purge = RawHttp.post(fixture.adminPort(), "/admin/purge", "{\"all\":true}");

        assertThat(purge.statusCode()).isEqualTo(200);
        assertThat(json(purge.body()).path("purged").asLong()).isPositive();
        assertThat(json(purge.body()).path("semantic_purged").asLong()).as("the index could not purge").isEqualTo(-1);
        assertThat(xCache(RawHttp.post(fixture.port(), CHAT, body))).isEqualTo("MISS");
    }
}
