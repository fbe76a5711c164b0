package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semantic cache through the gateway, with the bundled ONNX model and the embedded Lucene index: paraphrases
 * hit inside one scope and never across scopes, hits warm the exact cache, purges reach the index, and requests
 * a paraphrase must not answer miss. Each test has a system prompt of its own, so tests never share a scope.
 * Audits are off: they would add a background backend call to some hits (they have {@link SemanticAuditIT}).
 * Every lookup here starts its embedding before the exact lookup ({@code embed_early}); other ITs cover the default.
 */
class SemanticCacheIT {

    private static final String PASSWORD = "How do I reset my password?";
    private static final String PASSWORD_PARAPHRASE = "How can I reset my password?";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            tenants:
              - {id: acme, api_keys: [acme-key]}
              - {id: globex, api_keys: [globex-key]}
            cache:
              semantic: {enabled: true, path: "${DIR}", ttl: 1h, max_error_rate: 0, embed_early: true, audit: {rate: 0}}  # static: the budget is SemanticAuditIT's
            routes:
              - match: {path: /v1/completions}
                cache: {semantic: false}
              - match: {model: "qwen2.5-0.5b"}
                cache: {semantic: true, semantic_max_turns: 3}
              - match: {model: "*"}
                cache: {semantic: true, semantic_max_turns: 1}
            """);

    @Test
    void paraphrase_inSameScope_isSemanticHitAndWarmsExactCache() throws Exception {
        String system = "support bot " + nonce();
        long before = fixture.sim().stats().requests();
        HttpResponse<String> first = askAndIndex(system, PASSWORD);

        HttpResponse<String> paraphrase = ask(system, PASSWORD_PARAPHRASE);

        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(header(first, "Server-Timing")).as("a miss shows where its time went before the backend")
                .matches("cache;dur=\\d+\\.\\d{3}, embed;dur=\\d+\\.\\d{3}, search;dur=\\d+\\.\\d{3}, "
                        + "upstream;dur=\\d+\\.\\d{3}, total;dur=\\d+\\.\\d{3}");
        assertThat(xCache(paraphrase)).isEqualTo("HIT");
        assertThat(header(paraphrase, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(Double.parseDouble(header(paraphrase, "X-Cache-Similarity"))).isBetween(0.9, 1.0);
        assertThat(header(paraphrase, "X-Cache-Similarity")).matches("0\\.\\d{4}|1\\.0000");
        assertThat(header(paraphrase, "Age")).matches("\\d+");
        assertThat(header(paraphrase, "X-Cache-Origin-Request-Id")).isEqualTo(header(first, "X-Request-Id"));
        assertThat(header(paraphrase, "Server-Timing")).contains("embed;dur=").contains("search;dur=");
        assertThat(content(paraphrase.body())).isEqualTo(content(first.body()));
        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);

        HttpResponse<String> repeat = ask(system, PASSWORD_PARAPHRASE);
        assertThat(xCache(repeat)).isEqualTo("HIT");
        assertThat(header(repeat, "X-Cache-Layer")).as("the semantic hit filed the answer under its own key")
                .isEqualTo("exact");
        assertThat(metric(fixture.gateway(), "cachegate_cache_lookups_total", "layer=\"semantic\"", "outcome=\"hit\"")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_semantic_similarity_count", "result=\"hit\"")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_semantic_embed_latency_seconds_count")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_semantic_search_latency_seconds_count")).isPositive();
        // The warm-up runs beside the first requests (this class does not wait for /ready): it ends, and says so.
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!json(RawHttp.get(fixture.adminPort(), "/admin/stats").body()).path("semantic").path("warm").asBoolean()
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        var stats = json(RawHttp.get(fixture.adminPort(), "/admin/stats").body());
        assertThat(stats.path("semantic").path("warm").asBoolean()).isTrue();
        assertThat(json(RawHttp.get(fixture.adminPort(), "/ready").body()).path("semanticWarm").asBoolean()).isTrue();
    }

    @Test
    void paraphrase_streamed_isReplayedFromTheSemanticHit() throws Exception {
        String system = "streaming bot " + nonce();
        HttpResponse<String> first = askAndIndex(system, PASSWORD);

        HttpResponse<String> streamed = RawHttp.post(fixture.port(), CHAT, body(system, PASSWORD_PARAPHRASE,
                ",\"stream\":true"), "Authorization", "Bearer acme-key");

        assertThat(xCache(streamed)).isEqualTo("HIT");
        assertThat(header(streamed, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(streamedContent(streamed.body())).isEqualTo(content(first.body()));
    }

    @Test
    void paraphrase_inAnotherScope_isMiss() throws Exception {
        String system = "scoped bot " + nonce();
        askAndIndex(system, PASSWORD);

        assertThat(xCache(ask("another " + system, PASSWORD_PARAPHRASE))).as("another system prompt").isEqualTo("MISS");
        assertThat(xCache(ask(system, PASSWORD_PARAPHRASE, "globex-key", ""))).as("another tenant").isEqualTo("MISS");
        assertThat(xCache(ask(system, PASSWORD_PARAPHRASE, "acme-key", ",\"max_tokens\":64")))
                .as("other sampling parameters").isEqualTo("MISS");
        assertThat(xCache(ask(system, PASSWORD_PARAPHRASE, "acme-key", ",\"response_format\":{\"type\":\"json_object\"}")))
                .as("another response format").isEqualTo("MISS");
    }

    @Test
    void differentNumbersOrPlans_areMisses() throws Exception {
        String system = "billing bot " + nonce();
        askAndIndex(system, "How do I get a refund for the annual plan?");

        assertThat(xCache(ask(system, "How do I get a refund for the monthly plan?"))).isEqualTo("MISS");
    }

    /** Issue 28: a number with one letter names a thing even when the letter is a unit's symbol (0.96-0.97 alike). */
    @Test
    void identifierLookalikes_areMisses_theSameIdentifierReworded_isAHit() throws Exception {
        String system = "concierge bot " + nonce();
        askAndIndex(system, "How do I get to 221B Baker Street?");
        askAndIndex(system, "Which truck is parked in bay 3V?");

        assertThat(xCache(ask(system, "How do I get to 221A Baker Street?"))).isEqualTo("MISS");
        assertThat(xCache(ask(system, "Which truck is parked in bay 3W?"))).isEqualTo("MISS");
        assertThat(xCache(ask(system, "What's the way to 221b Baker Street?"))).isEqualTo("HIT");
    }

    @Test
    void secondUserTurn_isNotMatchedSemantically() throws Exception {
        String system = "chat bot " + nonce();
        String first = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"},"
                + "{\"role\":\"user\",\"content\":" + quote(PASSWORD) + "}]}";
        double ineligible = metric(fixture.gateway(), "cachegate_cache_lookups_total", "layer=\"semantic\"", "outcome=\"ineligible\"");

        assertThat(xCache(RawHttp.post(fixture.port(), CHAT, first, "Authorization", "Bearer acme-key"))).isEqualTo("MISS");
        assertThat(metric(fixture.gateway(), "cachegate_cache_lookups_total", "layer=\"semantic\"", "outcome=\"ineligible\""))
                .isEqualTo(ineligible + 1);
    }

    @Test
    void earlierTurns_areInTheScope_onARouteThatMatchesConversations() throws Exception {
        String system = "multi-turn bot " + nonce();
        String ana = conversation(system, "Hi, I am Ana and I use the mobile app.", PASSWORD);
        double written = metric(fixture.gateway(), "cachegate_semantic_writes_total", "outcome=\"written\"");
        assertThat(RawHttp.post(fixture.port(), CHAT, ana, "Authorization", "Bearer acme-key").statusCode()).isEqualTo(200);
        assertThat(Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(fixture.gateway(), "cachegate_semantic_writes_total", "outcome=\"written\"") > written
                && metric(fixture.gateway(), "cachegate_semantic_writes_pending") == 0)).isTrue();

        HttpResponse<String> otherHistory = RawHttp.post(fixture.port(), CHAT,
                conversation(system, "Hi, I am Bob and I use the website.", PASSWORD_PARAPHRASE),
                "Authorization", "Bearer acme-key");
        HttpResponse<String> sameHistory = RawHttp.post(fixture.port(), CHAT,
                conversation(system, "Hi, I am Ana and I use the mobile app.", PASSWORD_PARAPHRASE),
                "Authorization", "Bearer acme-key");

        assertThat(xCache(otherHistory)).as("another conversation so far").isEqualTo("MISS");
        assertThat(xCache(sameHistory)).isEqualTo("HIT");
        assertThat(header(sameHistory, "X-Cache-Layer")).isEqualTo("semantic");
    }

    private static String conversation(String system, String firstTurn, String question) {
        return "{\"model\":\"qwen2.5-0.5b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(firstTurn) + "},"
                + "{\"role\":\"assistant\",\"content\":\"Hello! How can I help?\"},"
                + "{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
    }

    @Test
    void requestThreshold_onlyTightens_andInvalidIs400() throws Exception {
        String system = "strict bot " + nonce();
        askAndIndex(system, PASSWORD);

        HttpResponse<String> strict = RawHttp.post(fixture.port(), CHAT, body(system, PASSWORD_PARAPHRASE, ""),
                "Authorization", "Bearer acme-key", "X-Cache-Threshold", "0.9999");
        assertThat(xCache(strict)).isEqualTo("MISS");

        HttpResponse<String> loose = RawHttp.post(fixture.port(), CHAT, body(system, "What is the capital of France?", ""),
                "Authorization", "Bearer acme-key", "X-Cache-Threshold", "0.1");
        assertThat(xCache(loose)).as("a looser threshold is ignored").isEqualTo("MISS");

        HttpResponse<String> invalid = RawHttp.post(fixture.port(), CHAT, body(system, PASSWORD_PARAPHRASE, ""),
                "Authorization", "Bearer acme-key", "X-Cache-Threshold", "high");
        assertThat(invalid.statusCode()).isEqualTo(400);
        assertThat(json(invalid.body()).path("error").path("message").asText()).contains("X-Cache-Threshold");
    }

    @Test
    void purgeByTenant_removesIndexEntries() throws Exception {
        String system = "purged bot " + nonce();
        askAndIndex(system, PASSWORD, "globex-key");

        HttpResponse<String> purge = RawHttp.post(fixture.adminPort(), "/admin/purge", "{\"tenant\":\"globex\"}");
        assertThat(purge.statusCode()).isEqualTo(200);
        assertThat(json(purge.body()).path("semantic_purged").asLong()).isPositive();

        assertThat(xCache(ask(system, PASSWORD_PARAPHRASE, "globex-key", ""))).isEqualTo("MISS");
    }

    @Test
    void indexEntryOfAPurgedExactEntry_isMissAndRemoved() throws Exception {
        String system = "dangling bot " + nonce();
        askAndIndex(system, PASSWORD);
        // Only the exact store: the index entry now points at nothing.
        fixture.gateway().cacheStore().purge(new PurgeScope(false, Optional.of("acme"), Optional.empty(), Optional.empty()))
                .get(10, TimeUnit.SECONDS);
        double dangling = metric(fixture.gateway(), "cachegate_semantic_dangling_total");

        assertThat(xCache(ask(system, PASSWORD_PARAPHRASE))).isEqualTo("MISS");
        assertThat(metric(fixture.gateway(), "cachegate_semantic_dangling_total")).isEqualTo(dangling + 1);
    }

    private static HttpResponse<String> ask(String system, String question) throws Exception {
        return ask(system, question, "acme-key", "");
    }

    private static HttpResponse<String> ask(String system, String question, String key, String extra) throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), CHAT, body(system, question, extra),
                "Authorization", "Bearer " + key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static HttpResponse<String> askAndIndex(String system, String question) throws Exception {
        return askAndIndex(system, question, "acme-key");
    }

    /**
     * Asks, then waits for the index entry: the memory store's write completes before the answer leaves, and
     * starts the write-back at once, so no write-back in progress means this answer's entry is in the index.
     */
    private static HttpResponse<String> askAndIndex(String system, String question, String key) throws Exception {
        HttpResponse<String> response = ask(system, question, key, "");
        CacheCalls.awaitIndexed(fixture.gateway());
        return response;
    }

    private static String body(String system, String question, String extra) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]" + extra + "}";
    }
}
