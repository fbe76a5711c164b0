package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.FakeQdrantServer;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two gateways sharing one semantic index ({@code store: qdrant}, the in-process Qdrant of cache-semantic's test
 * jar served on a loopback port) and one exact store (the real Redis): a paraphrase asked at one gateway is a
 * semantic hit on the answer the other generated.
 */
class SharedSemanticIndexIT {

    private static final String COLLECTION = "fleet" + nonce();
    private static final String TENANT = "t" + nonce();
    private static BackendSimulator sim;
    private static FakeQdrantServer qdrant;
    private static Gateway a;
    private static Gateway b;

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        qdrant = FakeQdrantServer.listening();
        String policy = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@%s"}
                tenants:
                  - {id: %s, api_keys: [shared-key]}
                cache:
                  exact: {store: redis, redis_uri: "%s", ttl: 1h, timeout: 500ms}
                  semantic:
                    enabled: true
                    store: qdrant
                    ttl: 1h
                    max_error_rate: 0
                    audit: {rate: 0}
                    qdrant: {host: 127.0.0.1, port: %d, collection: %s, timeout: 2s}
                routes:
                  - cache: {semantic: true}
                """.formatted(sim.baseUrl(), TENANT, TENANT, RedisTestServer.sharedUri(), qdrant.port(), COLLECTION);
        a = Gateway.start(TestPolicies.parse(policy));
        b = Gateway.start(TestPolicies.parse(policy));
        for (Gateway gw : new Gateway[] {a, b}) {
            assertThat(Poll.until(Duration.ofSeconds(10),
                    () -> metricOrZero(gw, "cachegate_cache_store_available") == 1)).as("redis connected").isTrue();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(a, b, qdrant, sim);
    }

    @Test
    void paraphraseAtOneGateway_isSemanticHitOnTheOthersAnswer_untilPurged() throws Exception {
        String system = "fleet support bot " + nonce();
        long calls = sim.stats().requests();
        int points = qdrant.pointCount(COLLECTION);

        HttpResponse<String> first = ask(a, system, "How do I reset my password?");
        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(Poll.until(Duration.ofSeconds(10), () -> qdrant.pointCount(COLLECTION) > points))
                .as("gateway A filed its answer in the shared collection").isTrue();

        HttpResponse<String> paraphrase = ask(b, system, "How can I reset my password?");

        assertThat(xCache(paraphrase)).isEqualTo("HIT");
        assertThat(header(paraphrase, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(header(paraphrase, "X-Cache-Origin-Request-Id")).isEqualTo(header(first, "X-Request-Id"));
        assertThat(content(paraphrase.body())).isEqualTo(content(first.body()));
        assertThat(sim.stats().requests() - calls).as("one backend call for both gateways").isEqualTo(1);

        assertThat(purge(a, "{\"tenant\":\"" + TENANT + "\"}")).isPositive();
        HttpResponse<String> afterPurge = ask(b, system, "How could I reset my password?");
        assertThat(xCache(afterPurge)).as("a purge through A ends B's semantic matches too (the index points at"
                + " the shared exact entry)").isEqualTo("MISS");
    }

    private static HttpResponse<String> ask(Gateway gw, String system, String question) throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
        HttpResponse<String> response = RawHttp.post(gw.port(), CHAT, body, "Authorization", "Bearer shared-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static double metricOrZero(Gateway gw, String name) {
        try {
            return CacheCalls.metric(gw, name);
        } catch (Exception e) {
            return 0;
        }
    }
}
