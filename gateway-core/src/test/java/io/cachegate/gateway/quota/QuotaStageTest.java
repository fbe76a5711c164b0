package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.ResponseHeaders;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The quota stage on exchanges (each on an {@code EmbeddedChannel} with the {@link ResponseHeaders} handler in
 * front, as the proxy pipeline has it), with local buckets on the fake clock. acme: 2 requests per second, a burst
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
    private final Quotas quotas = Quotas.local(exchanges.metrics(), exchanges.ticker());
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
        Exchanges.channel(x).pipeline().addFirst(ResponseHeaders.INSTANCE);
        x.tenant(tenant);
        stage.handle(x, next);
        return x;
    }

    private static void answer(Exchange x, String json) {
        x.taps().onHead(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        x.taps().onContent(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        x.taps().onComplete();
        x.finish(200);
    }

    @Test
    void handle_underTheLimits_proceedsWithTheHeadersForItsAnswer() {
        Exchange x = handled("acme", 10);

        assertThat(next.count(x)).isEqualTo(1);
        var headers = ResponseHeaders.pending(x.ctx());
        assertThat(headers.get("x-ratelimit-limit-requests")).isEqualTo("2");
        assertThat(headers.get("x-ratelimit-remaining-requests")).isEqualTo("1");
        assertThat(headers.get("x-ratelimit-reset-requests")).as("one request refills in 0.5 s").isEqualTo("500ms");
        assertThat(headers.get("x-ratelimit-limit-tokens")).isEqualTo("1000");
        assertThat(Long.parseLong(headers.get("x-ratelimit-remaining-tokens"))).isBetween(980L, 999L);
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
        Exchange hit = handled("acme", 400);
        long afterHit = remainingTokens(hit);
        hit.finish(200);                                 // answered from the cache: the relay's tap never saw it
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
        assertThat(ResponseHeaders.pending(x.ctx())).isNull();
    }

    private static long remainingTokens(Exchange x) {
        return Long.parseLong(ResponseHeaders.pending(x.ctx()).get("x-ratelimit-remaining-tokens"));
    }

    private static void finishOk(Exchange x) {
        x.finish(200);
    }
}
