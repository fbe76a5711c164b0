package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code cache.semantic.speculative_upstream}: the upstream call starts while the semantic lookup runs. A miss is
 * answered by that call (a stream held until the lookup decides, then relayed whole; a whole answer that comes
 * first at once) and stored; a hit is answered from the cache and the call is cancelled at the backend; with no
 * idle capacity the request waits for the decision instead of queueing, so a hit never queues. Two simulators: one
 * answering at once (its answer arrives before the lookup decides), one slow (a hit's call is still running when it
 * is cancelled), the second behind admission control with one request at a time.
 */
class SpeculativeUpstreamIT {

    private static final String PASSWORD = "How do I reset my password?";
    private static final String PASSWORD_PARAPHRASE = "How can I reset my password?";
    private static BackendSimulator fast;
    private static BackendSimulator slow;
    private static BackendSimulator doomed;
    private static Gateway gateway;
    private static Path indexDir;

    @BeforeAll
    static void start() throws Exception {
        fast = BackendSimulator.start(SimulatorOptions.defaults().withModels(java.util.List.of("fast-model")));
        slow = BackendSimulator.start(SimulatorOptions.defaults().withModels(java.util.List.of("slow-model"))
                .withTtftMs(1_500));
        doomed = BackendSimulator.start(SimulatorOptions.defaults().withModels(java.util.List.of("doomed-model")));
        indexDir = Files.createTempDirectory("cachegate-speculative-it");
        gateway = Gateway.start(TestPolicies.parse("""
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - {name: fast, urls: ["%s"], model_version: "fast@v1"}
                  - {name: slow, urls: ["%s"], model_version: "slow@v1", max_concurrency: 1}
                  - {name: doomed, urls: ["%s"], model_version: "doomed@v1"}
                admission: {enabled: true}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "%s", ttl: 1h, max_error_rate: 0, speculative_upstream: true,
                             audit: {rate: 0}}
                routes:
                  - match: {model: "doomed-model"}
                    backend: doomed
                    cache: {semantic: true, semantic_max_turns: 1}
                  - match: {model: "slow-model"}
                    backend: slow
                    cache: {semantic: true, semantic_max_turns: 1}
                  - match: {model: "*"}
                    backend: fast
                    cache: {semantic: true, semantic_max_turns: 1}
                """.formatted(fast.baseUrl(), slow.baseUrl(), doomed.baseUrl(), indexDir.toString().replace('\\', '/'))));
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, fast, slow, doomed);
    }

    @Test
    void wholeAnswerBeforeTheDecision_goesAtOnce_andIsFiledWithTheLookupsVector() throws Exception {
        ask("fast-model", "warm the connection " + nonce(), PASSWORD, "");
        String system = "speculative miss " + nonce();
        // ~100 tokens take the embedder several times as long as this simulator takes to answer.
        String question = ("Please explain in detail how I reset the password of my account when I no longer have "
                + "access to the e-mail address I registered with, and what the support team needs from me. ").repeat(2);
        long before = fast.stats().requests();
        double first = speculations("answered_first");
        double embedded = metric(gateway, "cachegate_semantic_embed_texts_total");
        double written = metric(gateway, "cachegate_semantic_writes_total", "outcome=\"written\"");

        HttpResponse<String> miss = ask("fast-model", system, question, "");

        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(content(miss.body())).isNotEmpty();
        assertThat(header(miss, "Server-Timing")).as("sent before the lookup had a vector").doesNotContain("embed")
                .contains("upstream;dur=");
        assertThat(fast.stats().requests() - before).isEqualTo(1);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (metric(gateway, "cachegate_semantic_writes_total", "outcome=\"written\"") == written
                && System.nanoTime() < deadline) {
            Thread.sleep(10); // the lookup, and then the write-back, end after the answer left
        }
        assertThat(speculations("answered_first") - first).isEqualTo(1);
        assertThat(metric(gateway, "cachegate_semantic_writes_total", "outcome=\"written\"") - written).isEqualTo(1);
        assertThat(metric(gateway, "cachegate_semantic_embed_texts_total") - embedded)
                .as("the write-back waited for the lookup's embedding instead of embedding again").isEqualTo(1);
        HttpResponse<String> repeat = ask("fast-model", system, question, "");
        assertThat(xCache(repeat)).isEqualTo("HIT");
        assertThat(content(repeat.body())).isEqualTo(content(miss.body()));
        assertThat(fast.stats().requests() - before).isEqualTo(1);
    }

    @Test
    void streamedMiss_heldUntilTheLookupDecides_isRelayedWhole() throws Exception {
        String system = "speculative stream " + nonce();
        double used = speculations("used");

        HttpResponse<String> streamed = ask("fast-model", system, PASSWORD, ",\"stream\":true");

        assertThat(speculations("used") - used).as("held, then relayed once the lookup missed").isEqualTo(1);
        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(xCache(streamed)).isEqualTo("MISS");
        assertThat(streamed.body()).contains("data: [DONE]");
        assertThat(streamedContent(streamed.body())).isNotEmpty();
    }

    @Test
    void hit_cancelsTheCallAtTheBackend_andAnswersFromTheCache() throws Exception {
        String system = "speculative hit " + nonce();
        HttpResponse<String> first = ask("slow-model", system, PASSWORD, "");
        CacheCalls.awaitIndexed(gateway);
        // The call starts into idle capacity only: the backend's one slot must be free (an earlier test's call may
        // still be ending there).
        long idle = System.nanoTime() + 10_000_000_000L;
        while (slow.stats().active() > 0 && System.nanoTime() < idle) {
            Thread.sleep(20);
        }
        long requests = slow.stats().requests();
        long cancelled = slow.stats().cancelled();
        double cancelledCalls = speculations("cancelled");

        long start = System.nanoTime();
        HttpResponse<String> paraphrase = ask("slow-model", system, PASSWORD_PARAPHRASE, "");
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(xCache(paraphrase)).isEqualTo("HIT");
        assertThat(header(paraphrase, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(content(paraphrase.body())).isEqualTo(content(first.body()));
        assertThat(millis).as("answered from the cache, not after the backend's 1.5 s").isLessThan(1_200);
        assertThat(slow.stats().requests() - requests).as("the call had reached the backend").isEqualTo(1);
        assertThat(speculations("cancelled") - cancelledCalls).isEqualTo(1);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (slow.stats().cancelled() == cancelled && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(slow.stats().cancelled() - cancelled).as("the backend saw the call go").isEqualTo(1);
        HttpResponse<String> again = ask("slow-model", system, PASSWORD_PARAPHRASE, "");
        assertThat(header(again, "X-Cache-Layer")).as("the hit filed the answer under its own key; the flight "
                + "the cancelled call led is gone").isEqualTo("exact");
    }

    @Test
    void noIdleCapacity_aHitNeverQueues_andAMissWaitsForTheDecision() throws Exception {
        String system = "speculative busy " + nonce();
        ask("slow-model", system, PASSWORD, "");
        CacheCalls.awaitIndexed(gateway);
        // The backend's only slot is taken for 1.5 s by another request.
        long before = slow.stats().requests();
        CompletableFuture<HttpResponse<String>> busy = CompletableFuture.supplyAsync(() -> {
            try {
                return ask("slow-model", "occupying " + nonce(), "Say something long.", "");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (slow.stats().requests() == before && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        double notStarted = speculations("not_started");
        double waited = speculations("waited");
        long requests = slow.stats().requests();

        long start = System.nanoTime();
        HttpResponse<String> hit = ask("slow-model", system, PASSWORD_PARAPHRASE, "");
        long hitMillis = (System.nanoTime() - start) / 1_000_000;
        HttpResponse<String> miss = ask("slow-model", system, "What are your opening hours on Sundays?", "");

        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(hitMillis).as("not behind the busy request").isLessThan(1_000);
        assertThat(speculations("not_started") - notStarted).isEqualTo(1);
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(speculations("waited") - waited).as("queued only once the lookup missed").isEqualTo(1);
        assertThat(busy.get().statusCode()).isEqualTo(200);
        assertThat(slow.stats().requests() - requests).as("the miss only: the hit never reached the backend").isEqualTo(1);
    }

    @Test
    void backendGone_aHitIsStillServed_andAMissGetsTheError() throws Exception {
        String system = "speculative outage " + nonce();
        HttpResponse<String> first = ask("doomed-model", system, PASSWORD, "");
        CacheCalls.awaitIndexed(gateway);
        doomed.close(); // its port refuses connections from now on

        HttpResponse<String> hit = ask("doomed-model", system, PASSWORD_PARAPHRASE, "");
        HttpResponse<String> miss = ask("doomed-model", system, "What are your opening hours on Sundays?", "");

        assertThat(hit.statusCode()).as("the refused call's error waited for the lookup, which hit").isEqualTo(200);
        assertThat(header(hit, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(content(hit.body())).isEqualTo(content(first.body()));
        assertThat(miss.statusCode()).as("a miss gets the outage's error, as without the option").isBetween(500, 599);
        assertThat(miss.body()).contains("\"error\"");
    }

    private static double speculations(String outcome) throws Exception {
        return metric(gateway, "cachegate_semantic_speculations_total", "outcome=\"" + outcome + "\"");
    }

    private static HttpResponse<String> ask(String model, String system, String question, String extra)
            throws Exception {
        return RawHttp.post(gateway.port(), CHAT, "{\"model\":\"" + model + "\",\"temperature\":0,\"messages\":["
                + "{\"role\":\"system\",\"content\":" + quote(system) + "},{\"role\":\"user\",\"content\":"
                + quote(question) + "}]" + extra + "}");
    }
}
