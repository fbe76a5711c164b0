package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.RecordingNext;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The quota stage on exchanges (each on an {@code EmbeddedChannel}; the headers it sets are read off an answer
 * written through the exchange), with local buckets on the fake clock. acme: 2 requests per second, a burst
 * of 2, 1000 tokens per minute, 2 at once; globex: no limits.
 */
class QuotaStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            tenants:
              - id: acme
                api_keys: [k-acme]
                limits: {requests_per_second: 2, tokens_per_minute: 1000, max_concurrent: 2}
              - {id: globex, api_keys: [k-globex]}
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final Quotas quotas = Quotas.local(exchanges.ticker());
    private final QuotaStage stage = new QuotaStage(quotas);
    private final RecordingNext next = new RecordingNext();

    QuotaStageTest() {
        quotas.configure(POLICY.tenants());
    }

    @AfterEach
    void close() {
        exchanges.close();
        quotas.close();
    }

    /** A chat request of {@code tenant} with a prompt of about {@code words} tokens, through the stage. */
    private Exchange handled(String tenant, int words) {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "word ".repeat(words).strip()));
        x.tenant(tenant);
        stage.handle(x, next);
        return x;
    }

    /** The backend's answer, relayed. */
    private static void answer(Exchange x, String json) {
        x.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK), Answer.Source.BACKEND);
        x.answer().end(new DefaultLastHttpContent(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8))));
        Exchanges.written(x);
    }

    /** An answer from the cache, with the headers the stage set for it; it finishes {@code x}. */
    private static Written hit(Exchange x) {
        x.answer().whole(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer("{\"usage\":{\"total_tokens\":500}}".getBytes(StandardCharsets.UTF_8))),
                Answer.Source.CACHE);
        return Exchanges.written(x);
    }

    @Test
    void handle_underTheLimits_proceedsWithTheHeadersForItsAnswer() {
        Exchange x = handled("acme", 10);

        assertThat(next.count(x)).isEqualTo(1);
        Written headers = hit(x);
        assertThat(headers.header("x-ratelimit-limit-requests")).isEqualTo("2");
        assertThat(headers.header("x-ratelimit-remaining-requests")).isEqualTo("1");
        assertThat(headers.header("x-ratelimit-reset-requests")).as("one request refills in 0.5 s").isEqualTo("500ms");
        assertThat(headers.header("x-ratelimit-limit-tokens")).isEqualTo("1000");
        assertThat(Long.parseLong(headers.header("x-ratelimit-remaining-tokens"))).isBetween(980L, 999L);
    }

    @Test
    void handle_overTheBurst_429RequestsWithRetryAfterAndTheHeaders() {
        finishOk(handled("acme", 1));
        finishOk(handled("acme", 1));

        Exchange third = handled("acme", 1);

        assertThat(next.count(third)).isZero();
        Written written = Exchanges.written(third);
        assertThat(written.status()).isEqualTo(429);
        assertThat(written.body()).contains("\"type\":\"requests\"").contains("\"code\":\"rate_limit_exceeded\"")
                .contains("Please try again in 500ms");
        assertThat(written.header("Retry-After")).isEqualTo("1");
        assertThat(written.header("x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(written.header("x-ratelimit-reset-requests")).as("both requests back in 1 s").isEqualTo("1s");
        assertThat(exchanges.count("cachegate.quota.limited", "tenant", "acme", "kind", "requests")).isEqualTo(1);

        exchanges.ticker().advance(Duration.ofMillis(500));
        assertThat(next.count(handled("acme", 1))).isEqualTo(1);
    }

    @Test
    void handle_promptOverTheTokensLeft_429Tokens() {
        Exchange big = handled("acme", 2000);

        Written written = Exchanges.written(big);
        assertThat(written.status()).isEqualTo(429);
        assertThat(written.body()).contains("\"type\":\"tokens\"").contains("Request too large for tokens per minute");
        assertThat(exchanges.count("cachegate.quota.limited", "tenant", "acme", "kind", "tokens")).isEqualTo(1);
    }

    @Test
    void handle_maxConcurrent_thirdRefusedUntilOneFinishes() {
        Exchange first = handled("acme", 1);
        handled("acme", 1);

        Exchange third = handled("acme", 1);
        assertThat(Exchanges.written(third).status()).isEqualTo(429);
        assertThat(exchanges.count("cachegate.quota.limited", "kind", "concurrent")).isEqualTo(1);

        finishOk(first);
        exchanges.ticker().advance(Duration.ofSeconds(1));
        assertThat(next.count(handled("acme", 1))).isEqualTo(1);
    }

    @Test
    void finish_withoutABackendAnswer_givesTheEstimateBack() {
        long afterHit = remainingTokens(handled("acme", 400)); // answered from the cache, its usage 500: not charged
        exchanges.ticker().advance(Duration.ofSeconds(1)); // a request back; ~17 tokens refilled too

        Exchange next = handled("acme", 1);

        assertThat(afterHit).isLessThan(650);
        assertThat(remainingTokens(next)).as("the 400-token estimate given back").isGreaterThan(990);
    }

    @Test
    void finish_afterABackendAnswer_takesItsUsageInsteadOfTheEstimate() {
        Exchange x = handled("acme", 10);
        answer(x, "{\"id\":\"c1\",\"choices\":[{\"message\":{\"content\":\"hi\"}}],"
                + "\"usage\":{\"prompt_tokens\":300,\"completion_tokens\":200,\"total_tokens\":500}}");
        exchanges.ticker().advance(Duration.ofSeconds(1));

        Exchange after = handled("acme", 1);

        // 1000 - 500 used + ~16 refilled in a second - 1 estimated.
        assertThat(remainingTokens(after)).isBetween(505L, 520L);
    }

    @Test
    void handle_tenantWithoutLimits_passesUntouched() {
        Exchange x = handled("globex", 10);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(hit(x).header("x-ratelimit-limit-requests")).isNull();
    }

    /** The tokens left after {@code x}, as its answer (a hit) says; it finishes {@code x}. */
    private static long remainingTokens(Exchange x) {
        return Long.parseLong(hit(x).header("x-ratelimit-remaining-tokens"));
    }

    private static void finishOk(Exchange x) {
        x.finish(200);
    }
}
