package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The access and audit log end to end, in a file: a line for each outcome (miss with the answer's usage, exact
 * hit naming its origin, bypass and coalesced follower with their reasons, 429, 400, 401, 404) that carries no
 * prompt text, no API key and no admin token; audit lines for purges and a reload; the sampled-request file; and,
 * on a second gateway with {@code include_text}, the body and answer with an e-mail and a card number redacted.
 */
class AccessLogIT {

    private static final String TOKEN = "admin-secret-token-42";
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            .withSimulator(SimulatorOptions.defaults().withTtftMs(400).withTpotMs(2).withDefaultMaxTokens(16))
            .policy(policy("access.log", false, "sample_requests: {rate: 1, file: \"${DIR}/sample.jsonl\"}", ""));
    private static Gateway gateway;
    private static Gateway withText;

    @BeforeAll
    static void start() throws Exception {
        gateway = fixture.gateway();
        // With the semantic cache (the bundled model): a semantic hit's line too.
        withText = fixture.startAnother(policy("text.log", true, "",
                "\n  semantic: {enabled: true, path: \"${DIR}/index\", ttl: 1h, max_error_rate: 0}"));
    }

    private static String policy(String file, boolean includeText, String extraLog, String semantic) {
        return """
                server: {admin_token: %s}
                backends:
                  - {name: main, timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}}
                tenants:
                  - {id: acme, api_keys: [acme-key-123456]}
                  - {id: tiny, api_keys: [tiny-key-123456], limits: {requests_per_second: 1, burst: 1}}
                cache:
                  exact: {store: memory, ttl: 1h}%s
                routes:
                  - match: {model: "*"}
                    cache: {exact: true, semantic: %s}
                log: {access: file, file: "${DIR}/%s", include_text: %s%s}
                """.formatted(TOKEN, semantic, !semantic.isEmpty(), file, includeText,
                extraLog.isEmpty() ? "" : ", " + extraLog);
    }

    private static HttpResponse<String> ask(Gateway g, String body, String key) throws Exception {
        return RawHttp.post(g.port(), CHAT, body, "Authorization", "Bearer " + key);
    }

    private static String id(HttpResponse<?> response) {
        return response.headers().firstValue("X-Request-Id").orElseThrow();
    }

    /** The lines of {@code file} so far, parsed. */
    private static List<JsonNode> lines(String file) {
        try {
            Path p = fixture.dir().resolve(file);
            if (!Files.exists(p)) {
                return List.of();
            }
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(p)) {
                lines.add(json(line));
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first line of {@code file} matching {@code which}, waiting for the writer (up to 10 s). */
    private static JsonNode await(String file, Predicate<JsonNode> which) {
        JsonNode[] found = new JsonNode[1];
        Poll.until(Duration.ofSeconds(10), () -> {
            found[0] = lines(file).stream().filter(which).findFirst().orElse(null);
            return found[0] != null;
        });
        assertThat(found[0]).as("a line in " + file + " matching the test's request").isNotNull();
        return found[0];
    }

    private static JsonNode accessLine(String file, String requestId) {
        return await(file, l -> requestId.equals(l.path("request_id").asText()));
    }

    private static String raw(String file) throws IOException {
        return Files.readString(fixture.dir().resolve(file));
    }

    @Test
    void miss_thenExactHit_usageFromTheAnswer_originOfTheHit_noPromptOrKey() throws Exception {
        String words = "zebra" + nonce();
        HttpResponse<String> miss = RawHttp.post(gateway.port(), CHAT, chat("Tell me about " + words), "Authorization",
                "Bearer acme-key-123456", "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        HttpResponse<String> hit = ask(gateway, chat("Tell me about " + words), "acme-key-123456");

        JsonNode m = accessLine("access.log", id(miss));
        assertThat(m.path("type").asText()).isEqualTo("access");
        assertThat(m.path("status").asInt()).isEqualTo(200);
        assertThat(m.path("cache").asText()).isEqualTo("miss");
        assertThat(m.path("tenant").asText()).isEqualTo("acme");
        assertThat(m.path("model").asText()).isEqualTo("llama-3.1-8b");
        assertThat(m.path("model_version").asText()).isEqualTo("llama@v1");
        assertThat(m.path("backend").asText()).isEqualTo("main");
        assertThat(m.path("endpoint").asText()).isNotEmpty();
        assertThat(m.path("prompt_tokens").asInt()).as("from the answer's usage").isPositive();
        assertThat(m.path("completion_tokens").asInt()).isPositive();
        assertThat(m.path("upstream_ms").asDouble()).isPositive();
        assertThat(m.path("upstream_first_byte_ms").asDouble()).isPositive();
        assertThat(m.path("total_ms").asDouble()).isGreaterThanOrEqualTo(m.path("upstream_ms").asDouble());
        assertThat(m.path("trace_id").asText()).as("the client's trace").isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(m.has("layer")).as("absent facts are left out").isFalse();
        assertThat(m.toString()).doesNotContain("null");
        assertThat(m.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

        JsonNode h = accessLine("access.log", id(hit));
        assertThat(h.path("cache").asText()).isEqualTo("hit");
        assertThat(h.path("layer").asText()).isEqualTo("exact");
        assertThat(h.path("origin_request_id").asText()).isEqualTo(id(miss));
        assertThat(h.path("entry_age_ms").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(h.path("prompt_tokens").asInt()).isEqualTo(m.path("prompt_tokens").asInt());
        assertThat(h.has("backend")).isFalse();

        String all = raw("access.log");
        assertThat(all).as("no prompt text by default").doesNotContain(words);
        assertThat(all).as("never the API key").doesNotContain("acme-key-123456");
        assertThat(all).doesNotContain("\"body\"").doesNotContain("\"answer\"");
    }

    @Test
    void coalescedFollower_namesItsLeader() throws Exception {
        String body = chat("coalesce " + nonce());
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + CHAT))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer acme-key-123456")
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> answers = sent.stream().map(CompletableFuture::join).toList();
        HttpResponse<String> follower = answers.stream()
                .filter(r -> r.headers().firstValue("X-Cache-Coalesced").isPresent()).findFirst().orElseThrow();
        HttpResponse<String> leader = answers.stream()
                .filter(r -> r.headers().firstValue("X-Cache-Coalesced").isEmpty() && "MISS".equals(CacheCalls.xCache(r)))
                .findFirst().orElseThrow();

        JsonNode f = accessLine("access.log", id(follower));
        assertThat(f.path("reason").asText()).isEqualTo("coalesced");
        assertThat(f.path("origin_request_id").asText()).isEqualTo(id(leader));
        assertThat(f.path("status").asInt()).isEqualTo(200);
    }

    @Test
    void bypass_quotaRejection_andClientErrors_eachHaveALineWithTheirReason() throws Exception {
        HttpResponse<String> bypass = ask(gateway, "{\"model\":\"llama-3.1-8b\",\"temperature\":0.9,\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"hi\"}]}", "acme-key-123456");
        HttpResponse<String> first = ask(gateway, chat("tiny " + nonce()), "tiny-key-123456");
        HttpResponse<String> limited = ask(gateway, chat("tiny " + nonce()), "tiny-key-123456");
        HttpResponse<String> badJson = ask(gateway, "{\"model\":", "acme-key-123456");
        HttpResponse<String> badKey = RawHttp.get(gateway.port(), "/v1/models", "Authorization",
                "Bearer wrong-key-999999", "X-Request-Id", "refused-401-" + nonce());
        HttpResponse<String> unknown = RawHttp.get(gateway.port(), "/v1/nothing-here", "Authorization",
                "Bearer acme-key-123456", "X-Request-Id", "refused-404-" + nonce());

        JsonNode b = accessLine("access.log", id(bypass));
        assertThat(b.path("cache").asText()).isEqualTo("bypass");
        assertThat(b.path("reason").asText()).isEqualTo("nondeterministic");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(limited.statusCode()).isEqualTo(429);
        JsonNode q = accessLine("access.log", id(limited));
        assertThat(q.path("status").asInt()).isEqualTo(429);
        assertThat(q.path("cache").asText()).isEqualTo("error");
        assertThat(q.path("reason").asText()).isEqualTo("quota_requests");
        assertThat(q.path("tenant").asText()).isEqualTo("tiny");
        assertThat(accessLine("access.log", id(badJson)).path("status").asInt()).isEqualTo(400);
        assertThat(badKey.statusCode()).isEqualTo(401);
        JsonNode k = accessLine("access.log", id(badKey));
        assertThat(k.path("status").asInt()).isEqualTo(401);
        assertThat(k.path("reason").asText()).isEqualTo("invalid_api_key");
        assertThat(unknown.statusCode()).isEqualTo(404);
        JsonNode u = accessLine("access.log", id(unknown));
        assertThat(u.path("status").asInt()).isEqualTo(404);
        assertThat(u.path("reason").asText()).isEqualTo("not_found");
        assertThat(raw("access.log")).doesNotContain("wrong-key-999999").doesNotContain("tiny-key-123456");
    }

    @Test
    void purgesAndReload_areAudited_withoutTokenOrUserId() throws Exception {
        String auth = "Bearer " + TOKEN;
        HttpResponse<String> byTenant = RawHttp.post(gateway.adminPort(), "/admin/purge", "{\"tenant\":\"acme\"}",
                "Authorization", auth);
        HttpResponse<String> byUser = RawHttp.post(gateway.adminPort(), "/admin/purge",
                "{\"user\":\"alice-user-id-77\",\"tenant\":\"acme\"}", "Authorization", auth);
        HttpResponse<String> refused = RawHttp.post(gateway.adminPort(), "/admin/purge", "{\"all\":true}",
                "Authorization", "Bearer not-the-token");
        HttpResponse<String> reload = RawHttp.post(gateway.adminPort(), "/admin/reload", "", "Authorization", auth);

        assertThat(byTenant.statusCode()).isEqualTo(200);
        assertThat(byUser.statusCode()).isEqualTo(200);
        JsonNode t = await("access.log", l -> l.path("type").asText().equals("audit")
                && l.path("params").path("tenant").asText().equals("acme"));
        assertThat(t.path("action").asText()).isEqualTo("purge");
        assertThat(t.path("status").asInt()).isEqualTo(200);
        assertThat(t.path("caller").asText()).isEqualTo("127.0.0.1");
        assertThat(t.path("result").has("purged")).isTrue();
        JsonNode u = await("access.log", l -> l.path("type").asText().equals("audit")
                && l.path("params").path("user").asBoolean());
        assertThat(u.path("result").path("purged").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(refused.statusCode()).isEqualTo(401);
        JsonNode r = await("access.log", l -> l.path("type").asText().equals("audit") && l.path("status").asInt() == 401);
        assertThat(r.path("outcome").asText()).isEqualTo("unauthorised");
        JsonNode re = await("access.log", l -> l.path("action").asText().equals("reload"));
        assertThat(re.path("status").asInt()).isEqualTo(reload.statusCode());
        assertThat(re.path("outcome").asText()).isEqualTo(json(reload.body()).path("outcome").asText());

        String all = raw("access.log");
        assertThat(all).doesNotContain(TOKEN).doesNotContain("not-the-token").doesNotContain("alice-user-id-77");
    }

    @Test
    void reloadOfAChangedPolicyFile_isAuditedWithItsTrigger() throws Exception {
        Path file = fixture.dir().resolve("watched.yaml");
        String yaml = fixture.policyText(policy("watched.log", false, "", ""));
        Files.writeString(file, yaml);
        try (Gateway watched = Gateway.start(TestPolicies.parse(yaml), file)) {
            assertThat(watched.port()).isPositive();
            Files.writeString(file, yaml.replace("ttl: 1h", "ttl: 2h"));

            JsonNode line = await("watched.log", l -> l.path("type").asText().equals("audit"));
            assertThat(line.path("action").asText()).isEqualTo("reload");
            assertThat(line.path("params").path("trigger").asText()).isEqualTo("file");
            assertThat(line.path("caller").asText()).isEqualTo("local");
            assertThat(line.path("outcome").asText()).isEqualTo("applied");
            assertThat(line.path("result").path("generation").asInt()).isEqualTo(2);
        }
    }

    @Test
    void sampledRequests_areWrittenAsTenantAndBody_forTheAnalyzer() throws Exception {
        String words = "sampled " + nonce();
        ask(gateway, chat(words + " mail me at bob@example.com"), "acme-key-123456");

        JsonNode s = await("sample.jsonl", l -> l.path("body").path("messages").path(0).path("content").asText()
                .startsWith(words));
        assertThat(s.path("tenant").asText()).isEqualTo("acme");
        assertThat(s.path("time").asText()).isNotEmpty();
        assertThat(s.path("body").path("model").asText()).isEqualTo("llama-3.1-8b");
        assertThat(s.path("body").path("messages").path(0).path("content").asText())
                .isEqualTo(words + " mail me at [REDACTED:email]");
    }

    @Test
    void includeText_bodyAndAnswer_redacted_keyNeverLogged() throws Exception {
        String words = "gnu" + nonce();
        String question = "Hi, I am " + words + ", mail carol@example.org, card 4111 1111 1111 1111.";
        HttpResponse<String> sensitive = ask(withText, chat(question), "acme-key-123456");
        HttpResponse<String> miss = ask(withText, chat("plain question " + words), "acme-key-123456");
        HttpResponse<String> hit = ask(withText, chat("plain question " + words), "acme-key-123456");

        JsonNode s = accessLine("text.log", id(sensitive));
        assertThat(s.path("cache").asText()).isEqualTo("bypass");
        assertThat(s.path("reason").asText()).isEqualTo("sensitive");
        assertThat(s.path("body").path("messages").path(0).path("content").asText())
                .isEqualTo("Hi, I am " + words + ", mail [REDACTED:email], card [REDACTED:payment_card].");
        assertThat(s.path("answer").asText()).isNotEmpty();
        JsonNode m = accessLine("text.log", id(miss));
        String answer = CacheCalls.content(miss.body());
        assertThat(m.path("answer").asText()).isEqualTo(answer);
        JsonNode h = accessLine("text.log", id(hit));
        assertThat(h.path("cache").asText()).isEqualTo("hit");
        assertThat(h.path("answer").asText()).as("a hit's text comes from the entry").isEqualTo(answer);
        assertThat(h.path("body").path("model").asText()).isEqualTo("llama-3.1-8b");

        String all = raw("text.log");
        assertThat(all).doesNotContain("carol@example.org").doesNotContain("4111 1111 1111 1111");
        assertThat(all).doesNotContain("acme-key-123456");
        assertThat(all).as("with include_text the prompt is there, redacted").contains(words);
    }

    @Test
    void semanticHit_layerSimilarityOrigin_andTheEntrysAnswer() throws Exception {
        String system = "support bot " + nonce();
        double written = CacheCalls.metric(withText, "cachegate_semantic_writes_total", "outcome=\"written\"");
        HttpResponse<String> first = ask(withText, withSystem(system, "How do I reset my password?"), "acme-key-123456");
        assertThat(Poll.untilChecked(Duration.ofSeconds(30), () ->
                CacheCalls.metric(withText, "cachegate_semantic_writes_total", "outcome=\"written\"") > written
                && CacheCalls.metric(withText, "cachegate_semantic_writes_pending") == 0))
                .as("the first answer was indexed").isTrue();

        HttpResponse<String> paraphrase = ask(withText, withSystem(system, "How can I reset my password?"),
                "acme-key-123456");

        assertThat(paraphrase.headers().firstValue("X-Cache-Layer")).hasValue("semantic");
        JsonNode line = accessLine("text.log", id(paraphrase));
        assertThat(line.path("cache").asText()).isEqualTo("hit");
        assertThat(line.path("layer").asText()).isEqualTo("semantic");
        assertThat(line.path("similarity").asDouble()).isBetween(0.9, 1.0);
        assertThat(line.path("origin_request_id").asText()).isEqualTo(id(first));
        assertThat(line.path("answer").asText()).isEqualTo(CacheCalls.content(first.body()));
    }

    private static String withSystem(String system, String question) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
    }

    @Test
    void unwritableLogFile_refusesTheStart_namingTheKey() throws Exception {
        Path notADirectory = Files.writeString(fixture.dir().resolve("plain-file"), "x");
        String yaml = policy("plain-file/access.log", false, "", "");

        assertThatThrownBy(() -> fixture.startAnother(yaml))
                .isInstanceOf(StartRefusedException.class)
                .hasMessageContaining("log.file: cannot open").hasMessageContaining(notADirectory.toString());
    }
}
