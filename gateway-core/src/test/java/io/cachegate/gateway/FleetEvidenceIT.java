package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.ConfusableQuestions.RESET;
import static io.cachegate.gateway.ConfusableQuestions.RESET_AGAIN;
import static io.cachegate.gateway.ConfusableQuestions.RESET_CLOSE;
import static io.cachegate.gateway.ConfusableQuestions.RESET_OTHER;
import static io.cachegate.gateway.ConfusableQuestions.RESET_OTHER_AGAIN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Gateways over one Qdrant collection and one Redis share the error budget's evidence ({@code cache.fleet.
 * share_evidence}): an entry a wrong audit demoted at one gateway is served by no other, a gateway started later
 * learns it from the stream, and a gateway that does not share goes on serving it (so the test can fail).
 */
class FleetEvidenceIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String COLLECTION = "evidence" + nonce();
    /** Entries and evidence signed: the shared stream's records carry a MAC the others check. */
    private static final String SIGNING_KEY = "fleet-evidence-signing-key-of-32-bytes-or-more";
    private static BackendSimulator sim;
    private static FakeQdrantServer qdrant;
    /** Audits every hit and demotes a wrong entry. */
    private static Gateway auditor;
    /** Audits nothing: it knows of wrong entries only what the fleet tells it. */
    private static Gateway peer;
    /** Audits nothing and does not share. */
    private static Gateway loner;

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withAnswers(ConfusableQuestions.answers()));
        qdrant = FakeQdrantServer.listening();
        auditor = gateway("{rate: 1, per_second: 1000, answer_similarity: 1, on_wrong: demote}", true);
        peer = gateway("{rate: 0}", true);
        loner = gateway("{rate: 0}", false);
    }

    private static Gateway gateway(String audit, boolean share) throws Exception {
        Gateway gw = Gateway.start(TestPolicies.parse(policy(sim, qdrant, COLLECTION, audit,
                "share_evidence: " + share, ", signing_key: \"" + SIGNING_KEY + "\"")));
        assertThat(Poll.until(Duration.ofSeconds(10), () -> metricOrZero(gw, "cachegate_cache_store_available") == 1))
                .as("redis connected").isTrue();
        return gw;
    }

    /**
     * A gateway of the fleet: tenant {@code acme}, the cosine decision at 0.9 over {@code collection}, the real Redis.
     *
     * @param fleet the keys of {@code cache.fleet}
     * @param exact more keys of {@code cache.exact}, each after a comma, or empty
     */
    static String policy(BackendSimulator sim, FakeQdrantServer qdrant, String collection, String audit, String fleet,
                         String exact) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1, shutdown_grace: 1s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@1"}
                tenants:
                  - {id: acme, api_keys: [acme-key]}
                cache:
                  exact: {store: redis, redis_uri: "%s", ttl: 1h, timeout: 500ms%s}
                  fleet: {%s}
                  semantic:
                    enabled: true
                    store: qdrant
                    ttl: 1h
                    decision: cosine
                    threshold: 0.9
                    audit: %s
                    qdrant: {host: 127.0.0.1, port: %d, collection: %s, timeout: 2s}
                routes:
                  - cache: {semantic: true}
                """.formatted(sim.baseUrl(), RedisTestServer.sharedUri(), exact, fleet, audit, qdrant.port(), collection);
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(auditor, peer, loner, qdrant, sim);
    }

    @Test
    void anEntryDemotedAtOneGateway_isServedByNoGatewayThatShares_andAGatewayStartedLaterKnowsIt() throws Exception {
        String system = "shared evidence bot " + nonce();
        askAndIndex(auditor, system, RESET);
        assertThat(header(ask(peer, system, RESET_OTHER), "X-Cache-Layer"))
                .as("the peer serves the near entry (a wrong answer; it audits nothing)").isEqualTo("semantic");

        double received = shared(peer, "received");
        assertThat(header(ask(auditor, system, RESET_OTHER_AGAIN), "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(Poll.until(Duration.ofSeconds(20),
                () -> metricOrZero(auditor, "cachegate_semantic_entries_demoted_total") >= 1))
                .as("the auditor's audit found the hit wrong and demoted the entry").isTrue();
        assertThat(Poll.until(Duration.ofSeconds(10), () -> shared(peer, "received") >= received + 2))
                .as("the peer read the verdict and the demotion").isTrue();

        assertThat(header(ask(loner, system, RESET_CLOSE), "X-Cache-Layer"))
                .as("a gateway that does not share still serves the demoted entry").isEqualTo("semantic");
        assertThat(xCache(ask(peer, system, RESET_AGAIN))).as("the peer no longer serves it").isEqualTo("MISS");

        // A second scope, demoted the same way, for a gateway that starts only afterwards.
        String second = "shared evidence bot " + nonce();
        askAndIndex(auditor, second, RESET);
        assertThat(header(ask(auditor, second, RESET_OTHER), "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(Poll.until(Duration.ofSeconds(20),
                () -> metricOrZero(auditor, "cachegate_semantic_entries_demoted_total") >= 2)).isTrue();
        assertThat(header(ask(loner, second, RESET_CLOSE), "X-Cache-Layer")).isEqualTo("semantic");
        try (Gateway later = gateway("{rate: 0}", true)) {
            assertThat(Poll.until(Duration.ofSeconds(10), () -> shared(later, "received") >= 4))
                    .as("a gateway started later reads the stream from its start").isTrue();
            assertThat(Poll.untilChecked(Duration.ofSeconds(10),
                    () -> RawHttp.get(later.adminPort(), "/ready").statusCode() == 200))
                    .as("ready once the stream is read and the model warm").isTrue();
            assertThat(xCache(ask(later, second, RESET_AGAIN))).isEqualTo("MISS");
        }
        assertThat(shared(auditor, "sent")).isGreaterThanOrEqualTo(2);
        JsonNode sharing = JSON.readTree(RawHttp.get(peer.adminPort(), "/admin/stats").body())
                .path("semantic").path("sharedEvidence");
        assertThat(sharing.path("connected").asBoolean()).as("/admin/stats: %s", sharing).isTrue();
        assertThat(sharing.path("stream").asText()).startsWith("cg:evidence:v1:qdrant:" + COLLECTION + ":");
        assertThat(sharing.path("received").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(sharing.path("position").asText()).matches("\\d+-\\d+");
        assertThat(JSON.readTree(RawHttp.get(loner.adminPort(), "/admin/stats").body()).path("semantic")
                .has("sharedEvidence")).as("the loner shares nothing").isFalse();
        assertThat(shared(loner, "sent") + shared(loner, "received")).as("the loner has no stream").isZero();
        for (Gateway gw : new Gateway[] {auditor, peer}) {
            assertThat(shared(gw, "dropped") + shared(gw, "failed") + shared(gw, "unreadable") + shared(gw, "refused"))
                    .isZero();
        }
    }

    private static double shared(Gateway gw, String event) {
        try {
            return CacheCalls.metric(gw, "cachegate_semantic_evidence_shared_total", "event=\"" + event + "\"");
        } catch (Exception e) {
            return 0;
        }
    }

    private static HttpResponse<String> ask(Gateway gw, String system, String question) throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
        HttpResponse<String> response = RawHttp.post(gw.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static void askAndIndex(Gateway gw, String system, String question) throws Exception {
        double written = CacheCalls.metric(gw, "cachegate_semantic_writes_total", "outcome=\"written\"");
        assertThat(xCache(ask(gw, system, question))).isEqualTo("MISS");
        // This gateway's own write, not the collection's count: another gateway's write-back still in flight (the
        // peer's miss before the second scope) raised that too, and the paraphrase then came before the entry.
        assertThat(Poll.untilChecked(Duration.ofSeconds(10),
                () -> CacheCalls.metric(gw, "cachegate_semantic_writes_total", "outcome=\"written\"") > written))
                .as("filed in the shared collection").isTrue();
    }

    private static double metricOrZero(Gateway gw, String name) {
        try {
            return CacheCalls.metric(gw, name);
        } catch (Exception e) {
            return 0;
        }
    }
}
