package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.SdkStreams.collect;
import static io.cachegate.gateway.SdkStreams.finishReasons;
import static io.cachegate.gateway.SdkStreams.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The exact cache with the memory store, through the gateway: keys, cacheability, client controls, expiry, purge, replay. */
class ExactCacheIT {

    static final String VERSION = GatewayFixture.MODEL_VERSION;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulators(SimulatorOptions.defaults(),
            SimulatorOptions.defaults().withTpotMs(5).withDefaultMaxTokens(200)).policy(policy("memory", ""));

    /**
     * Tenants acme, globex, initech and umbrella (key {@code <id>-key}); model qwen2.5-0.5b on a
     * route that caches sampled answers; /v1/completions on a route with a 1s TTL.
     */
    static String policy(String store, String extraExact) {
        return policy("${SIM}", store, extraExact);
    }

    /** As above, on the backend at {@code backendUrl}. */
    static String policy(String backendUrl, String store, String extraExact) {
        return """
                backends:
                  - name: main
                    urls: ["%s"]
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                tenants:
                  - {id: acme, api_keys: [acme-key]}
                  - {id: globex, api_keys: [globex-key]}
                  - {id: initech, api_keys: [initech-key]}
                  - {id: umbrella, api_keys: [umbrella-key]}
                cache:
                  exact: {store: %s, ttl: 1h%s}
                routes:
                  - match: {model: "qwen2.5-0.5b"}
                    cache: {nondeterministic: true}
                  - match: {path: /v1/completions}
                    cache: {ttl: 1s}
                  - match: {model: "*"}
                    cache: {exact: true}
                """.formatted(backendUrl, store, extraExact);
    }

    static HttpResponse<String> post(String json, String... headers) throws Exception {
        return postTo(CHAT, json, headers);
    }

    static HttpResponse<String> postTo(String path, String json, String... headers) throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer acme-key";
        System.arraycopy(headers, 0, all, 2, headers.length);
        for (int i = 2; i < all.length; i += 2) {
            if (all[i].equalsIgnoreCase("Authorization")) {
                all[1] = all[i + 1]; // a test's own key replaces the default
                all[i] = "X-Test";
            }
        }
        HttpResponse<String> response = RawHttp.post(fixture.port(), path, json, all);
        assertThat(response.statusCode()).as("%s -> %s", json, response.body()).isEqualTo(200);
        return response;
    }

    @Test
    void hit_showsTheGatewaysOwnOriginId_neverTheFirstRequestersId() throws Exception {
        String body = chat("origin id " + nonce());
        HttpResponse<String> first = post(body, "X-Request-Id", "trace-of-tenant-a");
        assertThat(header(first, "X-Request-Id")).isEqualTo("trace-of-tenant-a");
        HttpResponse<String> hit = post(body);
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(header(hit, "X-Cache-Origin-Request-Id")).isNotEqualTo("trace-of-tenant-a").matches("[0-9a-f]{32}");
    }

    @Test
    void queryString_onCachedEndpoint_is400AndNeverReachesTheBackend() throws Exception {
        String body = chat("query " + nonce());
        long before = fixture.sim().stats().requests();
        HttpResponse<String> response = RawHttp.post(fixture.port(), "/v1/chat/completions?api-version=2024-02-01", body,
                "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"code\":\"invalid_request\"").contains("query string");
        assertThat(fixture.sim().stats().requests() - before).isZero();
    }

    @Test
    void identicalRequest_secondTime_isHitAndBackendCalledOnce() throws Exception {
        String body = chat("what is a cache " + nonce());
        long before = fixture.sim().stats().requests();

        HttpResponse<String> first = post(body);
        HttpResponse<String> second = post(body);

        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(xCache(second)).isEqualTo("HIT");
        assertThat(header(second, "X-Cache-Layer")).isEqualTo("exact");
        assertThat(header(second, "Age")).matches("\\d+");
        assertThat(header(second, "X-Cache-Origin-Request-Id")).isEqualTo(header(first, "X-Request-Id"));
        assertThat(header(second, "X-Request-Id")).isNotEqualTo(header(first, "X-Request-Id"));
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(json(second.body()).path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);
        assertThat(metric(fixture.gateway(), "cachegate_cache_lookups_total", "layer=\"exact\"", "outcome=\"hit\"")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_cache_calls_avoided_total")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_cache_tokens_saved_total")).isPositive();
    }

    @Test
    void byteDifferentButEqualRequest_isHit() throws Exception {
        String prompt = "equal bodies " + nonce();
        post(chat(prompt));

        String reordered = "{ \"messages\" : [{\"content\":" + CacheCalls.quote(prompt) + ",\"role\":\"user\"}],"
                + "\"temperature\": 0.0, \"model\":\"llama-3.1-8b\", \"stream\": false, \"top_p\": 1}";
        assertThat(xCache(post(reordered))).isEqualTo("HIT");
    }

    @Test
    void anyPartOfTheKeyDiffers_miss() throws Exception {
        String prompt = "key parts " + nonce();
        String base = chat(prompt);
        String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{\"type\":\"object\"}}}]";
        String system = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":" + CacheCalls.quote(prompt) + "}]}";
        post(base, "X-Cache-Context", "docs-v1");
        post(base);
        assertThat(xCache(post(base))).isEqualTo("HIT");

        Map<String, String[]> variants = new java.util.LinkedHashMap<>();
        variants.put("other tenant", new String[] {base, "Authorization", "Bearer globex-key"});
        variants.put("context header", new String[] {base, "X-Cache-Context", "docs-v2"});
        variants.put("system prompt", new String[] {system});
        variants.put("tool list", new String[] {chat(prompt, tools)});
        variants.put("top_p", new String[] {chat(prompt, "\"top_p\":0.5")});
        variants.put("seed", new String[] {chat(prompt, "\"seed\":7")});
        variants.put("max_tokens", new String[] {chat(prompt, "\"max_tokens\":500")});
        variants.put("presence_penalty", new String[] {chat(prompt, "\"presence_penalty\":0.5")});
        variants.put("frequency_penalty", new String[] {chat(prompt, "\"frequency_penalty\":0.5")});
        variants.put("stop", new String[] {chat(prompt, "\"stop\":[\"zzz\"]")});
        variants.put("logit_bias", new String[] {chat(prompt, "\"logit_bias\":{\"42\":1}")});
        variants.put("temperature", new String[] {chat(prompt, "\"seed\":7,\"temperature\":0.5")
                .replace("\"temperature\":0,", "")});

        for (Map.Entry<String, String[]> v : variants.entrySet()) {
            String[] args = v.getValue();
            String[] headers = java.util.Arrays.copyOfRange(args, 1, args.length);
            long before = fixture.sim().stats().requests();
            HttpResponse<String> response = post(args[0], headers);
            assertThat(xCache(response)).as(v.getKey()).isEqualTo("MISS");
            assertThat(fixture.sim().stats().requests() - before).as(v.getKey()).isEqualTo(1);
        }
        // And the original is still there, untouched by its variants.
        assertThat(xCache(post(base))).isEqualTo("HIT");
        assertThat(xCache(post(base, "X-Cache-Context", "docs-v1"))).isEqualTo("HIT");
    }

    @Test
    void temperatureOneAndOmitted_shareKey_onNondeterministicRoute() throws Exception {
        String prompt = "sample me " + nonce();
        String explicit = "{\"model\":\"qwen2.5-0.5b\",\"temperature\":1,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
        String omitted = "{\"model\":\"qwen2.5-0.5b\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";

        assertThat(xCache(post(explicit))).isEqualTo("MISS");
        assertThat(xCache(post(omitted))).isEqualTo("HIT");
    }

    @Test
    void samplingWithoutSeed_bypasses() throws Exception {
        String body = chat("creative " + nonce()).replace("\"temperature\":0", "\"temperature\":0.7");
        double bypassed = metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"nondeterministic\"");
        long before = fixture.sim().stats().requests();

        assertThat(xCache(post(body))).isEqualTo("BYPASS");
        assertThat(xCache(post(body))).isEqualTo("BYPASS");
        assertThat(fixture.sim().stats().requests() - before).isEqualTo(2);
        assertThat(metric(fixture.gateway(), "cachegate_cache_bypass_total", "reason=\"nondeterministic\"") - bypassed)
                .isEqualTo(2);
        // The same text at temperature 0 was never stored by those.
        assertThat(xCache(post(body.replace("\"temperature\":0.7", "\"temperature\":0")))).isEqualTo("MISS");
    }

    @Test
    void cacheControl_noStore_neitherReadsNorWrites() throws Exception {
        String body = chat("no store " + nonce());
        assertThat(xCache(post(body, "Cache-Control", "no-store"))).isEqualTo("BYPASS");
        assertThat(xCache(post(body))).as("nothing was written").isEqualTo("MISS");
        assertThat(xCache(post(body, "Cache-Control", "no-store"))).as("nor read").isEqualTo("BYPASS");
        // Several fields are one list (RFC 9110 5.3): no-store in the second is heard.
        assertThat(xCache(post(body, "Cache-Control", "max-age=3600", "Cache-Control", "no-store")))
                .isEqualTo("BYPASS");
    }

    @Test
    void cacheControl_noCache_skipsReadButWritesFreshAnswer() throws Exception {
        String body = chat("no cache " + nonce());
        post(body);
        long before = fixture.sim().stats().requests();

        HttpResponse<String> fresh = post(body, "Cache-Control", "no-cache");
        assertThat(xCache(fresh)).isEqualTo("MISS");
        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);
        HttpResponse<String> hit = post(body);
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(header(hit, "X-Cache-Origin-Request-Id")).as("the fresh answer replaced the old")
                .isEqualTo(header(fresh, "X-Request-Id"));
    }

    @Test
    void cacheControl_maxAge_acceptsOnlyYoungerEntries() throws Exception {
        String body = chat("max age " + nonce());
        post(body);
        assertThat(xCache(post(body, "Cache-Control", "max-age=60"))).isEqualTo("HIT");
        Thread.sleep(1100); // the entry's age is measured in wall-clock time by the gateway

        HttpResponse<String> old = post(body, "Cache-Control", "max-age=60");
        assertThat(xCache(old)).isEqualTo("HIT");
        assertThat(Long.parseLong(header(old, "Age"))).isGreaterThanOrEqualTo(1);
        HttpResponse<String> tooOld = post(body, "Cache-Control", "max-age=0");
        assertThat(xCache(tooOld)).isEqualTo("MISS");
        HttpResponse<String> after = post(body);
        assertThat(xCache(after)).isEqualTo("HIT");
        assertThat(header(after, "X-Cache-Origin-Request-Id")).as("the refused entry was replaced by the fresh one")
                .isEqualTo(header(tooOld, "X-Request-Id"));
    }

    @Test
    void routeTtl_entryExpires() throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"prompt\":\"expire " + nonce() + "\"}";
        assertThat(xCache(postTo("/v1/completions", body))).isEqualTo("MISS");
        assertThat(xCache(postTo("/v1/completions", body))).isEqualTo("HIT");

        assertThat(Poll.until(Duration.ofSeconds(5), () -> {
            try {
                Thread.sleep(200);
                return xCache(postTo("/v1/completions", body)).equals("MISS");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        })).as("the 1s route TTL expired the entry").isTrue();
    }

    @Test
    void purge_byTenantTagModelVersionAndAll_effectiveAtOnce() throws Exception {
        String n = nonce();
        String acme = chat("purge tenant " + n);
        String globex = chat("purge tenant " + n);
        String tagged1 = chat("purge tag one " + n);
        String tagged2 = chat("purge tag two " + n);
        post(acme);
        post(globex, "Authorization", "Bearer globex-key");
        post(tagged1, "Authorization", "Bearer initech-key", "X-Cache-Tags", "doc:" + n + ", kb:7");
        post(tagged2, "Authorization", "Bearer initech-key", "X-Cache-Tags", "doc:other" + n);

        assertThat(purge(fixture.gateway(), "{\"tenant\":\"acme\"}")).isPositive();
        assertThat(xCache(post(acme))).isEqualTo("MISS");
        assertThat(xCache(post(globex, "Authorization", "Bearer globex-key"))).isEqualTo("HIT");

        assertThat(purge(fixture.gateway(), "{\"tag\":\"doc:" + n + "\"}")).isEqualTo(1);
        assertThat(xCache(post(tagged1, "Authorization", "Bearer initech-key"))).isEqualTo("MISS");
        assertThat(xCache(post(tagged2, "Authorization", "Bearer initech-key"))).isEqualTo("HIT");
        // Tags in two fields are one list: the second field's tag purges it too.
        String tagged3 = chat("purge tag three " + n);
        post(tagged3, "Authorization", "Bearer initech-key", "X-Cache-Tags", "doc:a" + n, "X-Cache-Tags", "kb:" + n);
        assertThat(xCache(post(tagged3, "Authorization", "Bearer initech-key"))).as("stored").isEqualTo("HIT");
        assertThat(purge(fixture.gateway(), "{\"tag\":\"kb:" + n + "\"}")).isEqualTo(1);
        assertThat(xCache(post(tagged3, "Authorization", "Bearer initech-key"))).isEqualTo("MISS");

        assertThat(purge(fixture.gateway(), "{\"model_version\":\"other@v9\"}")).isZero();
        assertThat(xCache(post(globex, "Authorization", "Bearer globex-key"))).isEqualTo("HIT");
        assertThat(purge(fixture.gateway(), "{\"model_version\":\"" + VERSION + "\"}")).isPositive();
        assertThat(xCache(post(globex, "Authorization", "Bearer globex-key"))).isEqualTo("MISS");

        assertThat(purge(fixture.gateway(), "{\"all\":true}")).isPositive();
        assertThat(xCache(post(globex, "Authorization", "Bearer globex-key"))).isEqualTo("MISS");
        assertThat(purge(fixture.gateway(), "{\"all\":true}")).isEqualTo(1);

        HttpResponse<String> bad = RawHttp.post(fixture.adminPort(), "/admin/purge", "{\"tenants\":\"acme\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
    }

    @Test
    void badCacheTags_rejected_connectionStaysUsable() throws Exception {
        String body = chat("bad tags " + nonce());
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(RawHttp.rawPost(CHAT, body.getBytes(StandardCharsets.UTF_8), "Authorization: Bearer acme-key",
                    "X-Cache-Tags: bad tag"));
            assertThat(RawHttp.read(in).status()).isEqualTo(400);
            out.write(RawHttp.rawPost(CHAT, body.getBytes(StandardCharsets.UTF_8), "Authorization: Bearer acme-key"));
            RawHttp.Response next = RawHttp.read(in);
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.header("X-Cache")).isEqualTo("MISS");
        }
    }

    @Test
    void streamingHit_parsedByOpenAiSdk_equalsOriginal() throws Exception {
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + fixture.port() + "/v1")
                .apiKey("acme-key").maxRetries(0).build();
        try {
            ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                    .model("llama-3.1-8b")
                    .addSystemMessage("You are terse.")
                    .addUserMessage("Stream me a story " + nonce())
                    .temperature(0.0)
                    .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                    .build();
            long before = fixture.sim().stats().requests();
            List<ChatCompletionChunk> original = collect(client, params);
            List<ChatCompletionChunk> replay = collect(client, params);
            ChatCompletion whole = client.chat().completions().create(params);

            assertThat(fixture.sim().stats().requests() - before).as("the replay and the JSON answer came from the cache")
                    .isEqualTo(1);
            assertThat(text(replay)).isEqualTo(text(original)).isNotBlank();
            assertThat(ids(replay)).isEqualTo(ids(original)).hasSize(1);
            assertThat(finishReasons(replay)).isEqualTo(finishReasons(original)).containsExactly("stop");
            var usage = replay.get(replay.size() - 1).usage().orElseThrow();
            var expected = original.get(original.size() - 1).usage().orElseThrow();
            assertThat(usage.promptTokens()).isEqualTo(expected.promptTokens()).isPositive();
            assertThat(usage.completionTokens()).isEqualTo(expected.completionTokens()).isPositive();
            assertThat(usage.totalTokens()).isEqualTo(expected.totalTokens());
            assertThat(replay.get(0).choices().get(0).delta().role()).isPresent();

            assertThat(whole.id()).isEqualTo(original.get(0).id());
            assertThat(whole.choices().get(0).message().content()).contains(text(original));
            assertThat(whole.usage().orElseThrow().completionTokens()).isEqualTo(expected.completionTokens());
        } finally {
            client.close();
        }
    }

    @Test
    void streamingMiss_isStored_thenServedStreamingAndNot() throws Exception {
        String body = chat("stream miss " + nonce(), "\"stream\":true");
        HttpResponse<String> miss = post(body);
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(miss.body()).contains("data: [DONE]");

        HttpResponse<String> streamHit = post(body);
        assertThat(xCache(streamHit)).isEqualTo("HIT");
        assertThat(header(streamHit, "Content-Type")).startsWith("text/event-stream");
        assertThat(streamHit.body()).endsWith("data: [DONE]\n\n");
        assertThat(streamedContent(streamHit.body())).isEqualTo(streamedContent(miss.body())).isNotBlank();
        assertThat(CacheCalls.events(streamHit.body())).as("no usage chunk unless stream_options.include_usage")
                .noneMatch(e -> e.has("usage") && !e.get("usage").isNull());

        HttpResponse<String> jsonHit = post(body.replace("\"stream\":true", "\"stream\":false"));
        assertThat(xCache(jsonHit)).isEqualTo("HIT");
        assertThat(header(jsonHit, "Content-Type")).startsWith("application/json");
        assertThat(content(jsonHit.body())).isEqualTo(streamedContent(miss.body()));
        assertThat(json(jsonHit.body()).path("object").asText()).isEqualTo("chat.completion");
    }

    @Test
    void streamCancelledByClient_isNotStored() throws Exception {
        BackendSimulator slow = fixture.sim(2);
        try (Gateway gw = fixture.startAnother(policy("${SIM_2}", "memory", ""))) {
            String body = chat("cancel me " + nonce(), "\"stream\":true");
            try (Socket socket = RawHttp.connect(gw.port())) {
                socket.getOutputStream().write(RawHttp.rawPost(CHAT, body.getBytes(StandardCharsets.UTF_8),
                        "Authorization: Bearer acme-key"));
                InputStream in = socket.getInputStream();
                assertThat(RawHttp.line(in)).startsWith("HTTP/1.1 200");
                assertThat(RawHttp.readEvents(in, 3)).isEqualTo(3);
            }
            assertThat(Poll.until(Duration.ofSeconds(10), () -> slow.stats().cancelled() == 1)).isTrue();
            assertThat(Poll.until(Duration.ofSeconds(10), () -> gw.metrics().inFlight() == 0)).isTrue();

            HttpResponse<String> after = RawHttp.post(gw.port(), CHAT, body, "Authorization", "Bearer acme-key");
            assertThat(after.statusCode()).isEqualTo(200);
            assertThat(xCache(after)).as("the cut-off stream was not stored").isEqualTo("MISS");
            assertThat(xCache(RawHttp.post(gw.port(), CHAT, body, "Authorization", "Bearer acme-key")))
                    .as("the complete one was").isEqualTo("HIT");
        }
    }

    @Test
    void embeddings_areCached() throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"input\":\"embed " + nonce() + "\"}";
        long before = fixture.sim().stats().requests();
        HttpResponse<String> first = postTo("/v1/embeddings", body);
        HttpResponse<String> second = postTo("/v1/embeddings", body);

        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(xCache(second)).isEqualTo("HIT");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(json(second.body()).path("data").path(0).path("embedding").size()).isPositive();
        assertThat(fixture.sim().stats().requests() - before).isEqualTo(1);
    }

    @Test
    void randomRequestsUnderRandomTenants_neverServeAnotherTenantsEntry() throws Exception {
        Random random = new Random(20240701);
        String[] tenants = {"acme", "globex", "initech", "umbrella"};
        String run = nonce();
        String[] contexts = {null, "ctx-a", "ctx-b"};
        // (tenant, prompt, context) -> the request ids whose answers were generated for it
        Map<String, Set<String>> generatedFor = new HashMap<>();
        Map<String, String> ownerOf = new HashMap<>();
        int hits = 0;
        for (int i = 0; i < 200; i++) {
            String tenant = tenants[random.nextInt(tenants.length)];
            int prompt = random.nextInt(6);
            String context = contexts[random.nextInt(contexts.length)];
            boolean stream = random.nextInt(4) == 0;
            String body = chat("shared question " + prompt + " " + run, stream ? "\"stream\":true" : "");
            List<String> headers = new ArrayList<>(List.of("Authorization", "Bearer " + tenant + "-key"));
            if (context != null) {
                headers.addAll(List.of("X-Cache-Context", context));
            }
            HttpResponse<String> response = post(body, headers.toArray(String[]::new));
            String slot = tenant + "|" + prompt + "|" + context;
            String requestId = header(response, "X-Request-Id");
            switch (xCache(response)) {
                case "MISS" -> {
                    generatedFor.computeIfAbsent(slot, s -> new HashSet<>()).add(requestId);
                    ownerOf.put(requestId, slot);
                }
                case "HIT" -> {
                    hits++;
                    String origin = header(response, "X-Cache-Origin-Request-Id");
                    assertThat(ownerOf.get(origin)).as("request %d (%s) was served the entry of %s", i, slot,
                            ownerOf.get(origin)).isEqualTo(slot);
                }
                default -> throw new AssertionError("unexpected X-Cache " + xCache(response) + " for request " + i);
            }
        }
        assertThat(hits).as("most requests repeat one of 72 slots").isGreaterThan(100);
    }

    private static List<String> ids(List<ChatCompletionChunk> chunks) {
        return chunks.stream().map(ChatCompletionChunk::id).distinct().toList();
    }
}
