package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sensitive data through the gateway with the semantic cache on (bundled model, embedded index): a request with
 * a card number is a BYPASS every time and leaves nothing in the exact store or the semantic index; on a
 * {@code private} route the entry serves its own end user only; on an {@code allow} route the exact cache works
 * and the semantic index stays out; the same data in fullwidth digits, with no-break spaces, a fullwidth at sign or
 * in a tool's description is a BYPASS too. Each test has a system prompt of its own, so tests never share a scope.
 */
class SensitiveDataIT {

    private static final String CARD_QUESTION = "Why was my card 4111 1111 1111 1111 declined yesterday?";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            tenants:
              - {id: acme, api_keys: [acme-key]}
            cache:
              semantic: {enabled: true, path: "${DIR}", ttl: 1h}
            routes:
              - match: {model: "qwen2.5-0.5b"}
                cache: {semantic: true, sensitive: private}
              - match: {model: "*"}
                cache: {semantic: true}
            """);

    @Test
    void cardNumber_sentTwice_isBypassBothTimes_andNothingIsStoredOrIndexed() throws Exception {
        String system = "billing bot " + nonce();
        double written = metric(fixture.gateway(), "cachegate_cache_entries_written_total");
        double indexed = metric(fixture.gateway(), "cachegate_semantic_writes_total");
        double sensitive = metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"sensitive\"");
        long calls = fixture.sim().stats().requests();

        HttpResponse<String> first = ask("llama-3.1-8b", system, CARD_QUESTION, "");
        HttpResponse<String> second = ask("llama-3.1-8b", system, CARD_QUESTION, "");
        HttpResponse<String> paraphrase = ask("llama-3.1-8b", system,
                "Why did my card 4111 1111 1111 1111 get declined yesterday?", "");

        assertThat(xCache(first)).isEqualTo("BYPASS");
        assertThat(xCache(second)).isEqualTo("BYPASS");
        assertThat(xCache(paraphrase)).isEqualTo("BYPASS");
        assertThat(fixture.sim().stats().requests() - calls).as("every one went to the backend").isEqualTo(3);
        assertThat(metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"sensitive\"") - sensitive).isEqualTo(3);
        assertThat(metric(fixture.gateway(), "cachegate_cache_entries_written_total")).as("nothing stored").isEqualTo(written);
        assertThat(metric(fixture.gateway(), "cachegate_semantic_writes_total")).as("nothing indexed").isEqualTo(indexed);
    }

    @Test
    void evasions_unicodeFormsAndToolDefinitions_areBypassAndNothingIsStored() throws Exception {
        String system = "evasion bot " + nonce();
        double written = metric(fixture.gateway(), "cachegate_cache_entries_written_total");
        double sensitive = metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"sensitive\"");
        String tools = ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"book\",\"description\":"
                + quote("Books for jane.doe@example.com") + ",\"parameters\":{\"type\":\"object\"}}}]";

        // Fullwidth digits, no-break spaces, a fullwidth at sign (issue 28): each was cached before the folding.
        for (String question : List.of("Why was my card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 "
                        + "\uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 declined?",
                "Why was my card 4111\u00a01111\u00a01111\u00a01111 declined?",
                "Please send the invoice to alice\uff20example.com")) {
            assertThat(xCache(ask("llama-3.1-8b", system, question, ""))).as(question).isEqualTo("BYPASS");
            assertThat(xCache(ask("llama-3.1-8b", system, question, ""))).as("again: " + question).isEqualTo("BYPASS");
        }
        assertThat(xCache(ask("llama-3.1-8b", system, "Book a table for two", tools))).as("a tool's description")
                .isEqualTo("BYPASS");

        assertThat(metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"sensitive\"") - sensitive).isEqualTo(7);
        assertThat(metric(fixture.gateway(), "cachegate_cache_entries_written_total")).as("nothing stored").isEqualTo(written);
    }

    @Test
    void cleanQuestionAfterwards_inTheSameScope_isNotServedTheSensitiveAnswer() throws Exception {
        String system = "support bot " + nonce();
        ask("llama-3.1-8b", system, CARD_QUESTION, "");

        HttpResponse<String> clean = ask("llama-3.1-8b", system, "Why was my card declined yesterday?", "");

        assertThat(xCache(clean)).as("no entry, exact or semantic, came from the card question").isEqualTo("MISS");
    }

    @Test
    void privateRoute_servesTheEntryToItsOwnUserOnly() throws Exception {
        String system = "private bot " + nonce();
        double indexed = metric(fixture.gateway(), "cachegate_semantic_writes_total");

        HttpResponse<String> u1 = ask("qwen2.5-0.5b", system, CARD_QUESTION, ",\"user\":\"u1\"");
        HttpResponse<String> u1Again = ask("qwen2.5-0.5b", system, CARD_QUESTION, ",\"user\":\"u1\"");
        HttpResponse<String> u2 = ask("qwen2.5-0.5b", system, CARD_QUESTION, ",\"user\":\"u2\"");
        HttpResponse<String> noUser = ask("qwen2.5-0.5b", system, CARD_QUESTION, "");
        HttpResponse<String> noUserAgain = ask("qwen2.5-0.5b", system, CARD_QUESTION, "");

        assertThat(xCache(u1)).isEqualTo("MISS");
        assertThat(xCache(u1Again)).isEqualTo("HIT");
        assertThat(content(u1Again.body())).isEqualTo(content(u1.body()));
        assertThat(xCache(u2)).as("another end user never hits u1's entry").isEqualTo("MISS");
        assertThat(xCache(noUser)).as("without a user: scoped to the API key").isEqualTo("MISS");
        assertThat(xCache(noUserAgain)).isEqualTo("HIT");
        assertThat(metric(fixture.gateway(), "cachegate_semantic_writes_total")).as("never in the semantic index")
                .isEqualTo(indexed);
    }

    private static HttpResponse<String> ask(String model, String system, String question, String extra)
            throws Exception {
        String body = "{\"model\":\"" + model + "\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]" + extra + "}";
        HttpResponse<String> response = RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        // Let a write-back (if any) land before the next request looks.
        Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(fixture.gateway(), "cachegate_semantic_writes_pending") == 0);
        return response;
    }
}
