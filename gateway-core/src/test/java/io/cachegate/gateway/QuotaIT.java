package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-tenant limits end to end, one gateway (local buckets) over the simulator: each tenant below has the limit
 * its test needs, so the tests never share a bucket.
 */
class QuotaIT {

    private static final String CHAT = "/v1/chat/completions";
    private static final String POLICY = """
            backends:
              - name: main
                model_version: "llama@1"
                timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
              - name: slow
                urls: ["${SIM_2}"]
                model_version: "qwen@1"
            routes:
              - {match: {model: qwen2.5-0.5b}, backend: slow}
              - {match: {model: "*"}, backend: main}
            cache:
              exact: {store: memory, ttl: 10m}
            tenants:
              - {id: burst, api_keys: [k-burst], limits: {requests_per_second: 1, burst: %d}}
              - {id: headers, api_keys: [k-headers], limits: {requests_per_second: 100, tokens_per_minute: 100000}}
              - {id: tokens, api_keys: [k-tokens], limits: {tokens_per_minute: 600}}
              - {id: inflight, api_keys: [k-inflight], limits: {max_concurrent: 1}}
              - {id: sdk, api_keys: [k-sdk], limits: {requests_per_second: 1, burst: 1}}
              - {id: free, api_keys: [k-free]}
            """;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulators(SimulatorOptions.defaults(),
            // 20 ms a token: a 40-token answer holds its request in flight for ~0.8 s.
            SimulatorOptions.defaults().withTpotMs(20)).watched().policy(POLICY.formatted(3));

    /** A 40-token answer from the slow backend: ~0.8 s in flight. */
    private static String slowChat(String prompt) {
        return "{\"model\":\"qwen2.5-0.5b\",\"max_tokens\":40,\"messages\":[{\"role\":\"user\",\"content\":\""
                + prompt + "\"}]}";
    }

    private static HttpResponse<String> post(String key, String body) throws Exception {
        return RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer " + key);
    }

    @Test
    void burst_thenRefused429_withRetryAfterAndOpenAiHeaders_andReloadChangesTheLimit() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> refused = null;
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> r = post("k-burst", chat("burst " + i + " " + nonce()));
            statuses.add(r.statusCode());
            if (r.statusCode() == 429) {
                refused = r;
            }
        }
        assertThat(statuses).as("a burst of 3, refilled at 1 a second").containsExactly(200, 200, 200, 429);
        assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("requests");
        assertThat(json(refused.body()).path("error").path("code").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(header(refused, "retry-after")).isEqualTo("1");
        assertThat(header(refused, "x-ratelimit-limit-requests")).isEqualTo("3");
        assertThat(header(refused, "x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(header(refused, "x-ratelimit-reset-requests")).matches("[0-9.]+m?s");
        assertThat(CacheCalls.metric(fixture.gateway(), "cachegate_quota_limited_total", "tenant=\"burst\"",
                "kind=\"requests\"")).isEqualTo(1);

        // A reload with a burst of 50: live at once, and what was left (nothing, ~1 refilled) is not refilled.
        long generation = fixture.gateway().policyGeneration();
        fixture.rewrite(POLICY.formatted(50));
        assertThat(RawHttp.post(fixture.adminPort(), "/admin/reload", "").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().policyGeneration()).isEqualTo(generation + 1);
        HttpResponse<String> after = post("k-burst", chat("after reload " + nonce()));
        assertThat(header(after, "x-ratelimit-limit-requests")).isEqualTo("50");
        assertThat(Long.parseLong(header(after, "x-ratelimit-remaining-requests")))
                .as("the bucket kept its level over the reload").isLessThan(5);
    }

    @Test
    void headers_onMissHitAndStream_cacheHitsCountRequestsNotTokens() throws Exception {
        String body = chat("headers " + nonce());
        HttpResponse<String> miss = post("k-headers", body);
        HttpResponse<String> hit = post("k-headers", body);
        HttpResponse<String> stream = post("k-headers", "{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":3,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"stream " + nonce() + "\"}]}");

        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(stream.body()).contains("data: [DONE]");
        for (HttpResponse<String> r : List.of(miss, hit, stream)) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(header(r, "x-ratelimit-limit-requests")).isEqualTo("100");
            assertThat(header(r, "x-ratelimit-limit-tokens")).isEqualTo("100000");
            assertThat(header(r, "x-ratelimit-reset-tokens")).isNotNull();
        }
        long requestsAfterMiss = Long.parseLong(header(miss, "x-ratelimit-remaining-requests"));
        long requestsAfterHit = Long.parseLong(header(hit, "x-ratelimit-remaining-requests"));
        assertThat(requestsAfterHit).as("a hit is a request").isLessThan(requestsAfterMiss + 1);
        HttpResponse<String> free = post("k-free", chat("no limits " + nonce()));
        assertThat(header(free, "x-ratelimit-limit-requests"))
                .as("a tenant without limits: not the backend's account figures either").isNull();
        assertThat(header(free, "x-ratelimit-remaining-requests")).isNull();
        assertThat(header(free, "server")).as("the backend's software").isNull();
        assertThat(header(free, "date")).isNull();
    }

    @Test
    void tokens_estimateCorrectedByUsage_thenRefusedAsTokens() throws Exception {
        // The simulator answers max_tokens tokens; its usage counts the prompt too.
        HttpResponse<String> first = post("k-tokens", chat("tokens one " + nonce(), "\"max_tokens\":200"));
        assertThat(first.statusCode()).isEqualTo(200);
        long used = json(first.body()).path("usage").path("total_tokens").asLong();
        assertThat(used).isGreaterThan(200);
        long remainingBefore = Long.parseLong(header(first, "x-ratelimit-remaining-tokens"));
        assertThat(remainingBefore).as("before the answer only the prompt estimate was taken").isGreaterThan(550);

        HttpResponse<String> second = post("k-tokens", chat("tokens two " + nonce(), "\"max_tokens\":200"));
        long remainingAfter = Long.parseLong(header(second, "x-ratelimit-remaining-tokens"));
        // 600 - the first answer's usage - the second's small estimate (+ a few refilled meanwhile).
        assertThat(remainingAfter).isBetween(600 - used - 30, 600 - used + 30);

        post("k-tokens", chat("tokens three " + nonce(), "\"max_tokens\":300"));
        HttpResponse<String> refused = post("k-tokens", chat("tokens four " + nonce()));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("tokens");
        assertThat(Long.parseLong(header(refused, "retry-after"))).isBetween(1L, 60L);
    }

    @Test
    void maxConcurrent_secondWhileTheFirstIsInFlight_refused() throws Exception {
        long before = fixture.sim(2).stats().requests();
        CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return post("k-inflight", slowChat("slow " + nonce()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(Poll.until(Duration.ofSeconds(5), () -> fixture.sim().stats().requests() > before && !slow.isDone())).isTrue();
        Thread.sleep(100); // the first is being generated

        HttpResponse<String> second = post("k-inflight", chat("second " + nonce()));

        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.body()).contains("in flight");
        assertThat(slow.get().statusCode()).isEqualTo(200);
        assertThat(post("k-inflight", chat("third " + nonce())).statusCode()).as("the slot given back").isEqualTo(200);
    }

    @Test
    void openAiSdk_seesRateLimitException_andItsRetryWaitsForRetryAfter() throws Exception {
        String base = "http://127.0.0.1:" + fixture.port() + "/v1";
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("llama-3.1-8b")
                .addUserMessage("sdk " + nonce()).maxCompletionTokens(2).build();
        OpenAIClient warm = OpenAIOkHttpClient.builder().baseUrl(base).apiKey("k-free").maxRetries(0).build();
        OpenAIClient noRetry = OpenAIOkHttpClient.builder().baseUrl(base).apiKey("k-sdk").maxRetries(0).build();
        OpenAIClient retrying = OpenAIOkHttpClient.builder().baseUrl(base).apiKey("k-sdk").maxRetries(2).build();
        try {
            warm.chat().completions().create(params); // the SDK's classes loaded, so what follows takes milliseconds
            post("k-sdk", chat("drain " + nonce(), "\"max_tokens\":1")); // the bucket of 1 is empty
            try {
                noRetry.chat().completions().create(params);
                throw new AssertionError("a request within a second of the last was not refused");
            } catch (RateLimitException e) {
                assertThat(e.statusCode()).isEqualTo(429);
                assertThat(e.headers().values("retry-after")).containsExactly("1");
            }
            post("k-sdk", chat("drain again " + nonce(), "\"max_tokens\":1"));
            long started = System.nanoTime();
            assertThat(retrying.chat().completions().create(params).choices()).isNotEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("the SDK retried after Retry-After, not at once").isGreaterThan(Duration.ofMillis(300));
        } finally {
            warm.close();
            noRetry.close();
            retrying.close();
        }
    }
}
