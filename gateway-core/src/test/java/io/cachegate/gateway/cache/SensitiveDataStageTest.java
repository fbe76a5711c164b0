package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sensitive-data stage after the key stage, per route mode: {@code no_store} turns a sensitive request into a
 * BYPASS, {@code private} scopes its key to the end user (or API key) and drops the semantic query, {@code allow}
 * keeps the exact key but drops the semantic query; a clean request goes on unchanged with an answer screen.
 */
class SensitiveDataStageTest {

    private static final String POLICY = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            %s
            cache:
              exact: {store: memory, ttl: 1h}
              semantic: {enabled: true, path: ./target/never-opened}
              sensitive_patterns:
                - {name: employee_id, regex: "EMP-\\\\d{6}"}
            routes:
              - match: {model: "private-*"}
                cache: {sensitive: private, semantic: true}
              - match: {model: "allow-*"}
                cache: {sensitive: allow, semantic: true}
              - match: {model: "*"}
                cache: {semantic: true}
            """;
    private static final String CARD = "My card is 4111 1111 1111 1111, why was it declined?";

    private final RecordingNext next = new RecordingNext();
    private Exchanges exchanges;
    private CacheKeyStage keyStage;
    private SensitiveDataStage stage;

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void handle_cleanRequest_keepsItsKeyAndQuery_andScreensTheAnswer() {
        start("");
        Exchange x = run(Exchanges.chatBody("llama-3.1-8b", "How do I reset my password?"));

        CacheableRequest c = x.get(CacheableRequest.KEY);
        assertThat(c).isNotNull();
        assertThat(c.query()).isNotNull();
        assertThat(x.get(AnswerScreen.KEY)).isNotNull();
        assertThat(next.count(x)).isEqualTo(2);
        assertThat(exchanges.count("cachegate.cache.bypass")).isZero();
    }

    @Test
    void handle_cardNumber_noStore_isBypassCountedAsSensitive() {
        start("");
        Exchange x = run(Exchanges.chatBody("llama-3.1-8b", CARD));

        assertThat(x.get(CacheableRequest.KEY)).isNull();
        assertThat(x.xCache()).isEqualTo(GatewayHeaders.BYPASS);
        assertThat(next.count(x)).isEqualTo(2);
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "sensitive")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "bypass")).isEqualTo(1);
    }

    @Test
    void handle_secretInAnySystemMessageOrContentPart_isFound() {
        start("");
        Exchange system = run("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\","
                + "\"content\":\"key: sk-proj-4f9Qm2xT7bLz8RkWc1VyH3nPa6\"},{\"role\":\"user\",\"content\":\"hi\"}]}");
        Exchange parts = run("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"hello\"},{\"type\":\"text\",\"text\":\"mail me at "
                + "ann@example.org\"}]}]}");
        Exchange toolCall = run("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"look it up\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"arguments\":\"{\\\"ssn\\\":\\\"078-05-1120\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"found\"}]}");

        assertThat(system.get(CacheableRequest.KEY)).isNull();
        assertThat(parts.get(CacheableRequest.KEY)).isNull();
        assertThat(toolCall.get(CacheableRequest.KEY)).isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "sensitive")).isEqualTo(3);
    }

    @Test
    void handle_cardSplitOverTwoMessages_isFound_evenWithANameBetween() {
        start("");
        Exchange split = run("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":["
                + "{\"role\":\"user\",\"name\":\"ann\",\"content\":\"my card is 4111 1111\"},"
                + "{\"role\":\"user\",\"name\":\"ann\",\"content\":\"1111 1111, why declined?\"}]}");
        Exchange apart = run("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"order 4111 1111\"},"
                + "{\"role\":\"user\",\"content\":\"shipped, then 1111 1111 more\"}]}");

        assertThat(split.get(CacheableRequest.KEY)).as("names come after the messages: the number continues").isNull();
        assertThat(apart.get(CacheableRequest.KEY)).as("words between the halves: two numbers").isNotNull();
    }

    @Test
    void handle_promptAndEmbeddingInput_areScannedToo() {
        start("");
        Exchange prompt = exchanges.post("/v1/completions",
                "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"prompt\":\"IBAN GB82 WEST 1234 5698 7654 32\"}");
        keyStage.handle(prompt, next);
        stage.handle(prompt, next);
        Exchange embedding = exchanges.post("/v1/embeddings",
                "{\"model\":\"llama-3.1-8b\",\"input\":[\"fine\",\"employee EMP-123456 left\"]}");
        keyStage.handle(embedding, next);
        stage.handle(embedding, next);

        assertThat(prompt.get(CacheableRequest.KEY)).isNull();
        assertThat(embedding.get(CacheableRequest.KEY)).as("the policy's own pattern").isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "sensitive")).isEqualTo(2);
    }

    @Test
    void handle_private_scopesTheKeyToTheUser_andNeverSemantic() {
        start("");
        CacheableRequest u1 = run(withUser(CARD, "user", "u1")).get(CacheableRequest.KEY);
        CacheableRequest u1Again = run(withUser(CARD, "user", "u1")).get(CacheableRequest.KEY);
        CacheableRequest u2 = run(withUser(CARD, "user", "u2")).get(CacheableRequest.KEY);
        CacheableRequest safety = run(withUser(CARD, "safety_identifier", "u1")).get(CacheableRequest.KEY);

        assertThat(u1).isNotNull();
        assertThat(u1.query()).isNull();
        assertThat(u1.key()).isEqualTo(u1Again.key());
        assertThat(u1.key()).isNotEqualTo(u2.key());
        assertThat(safety.key()).as("safety_identifier names the same end user").isEqualTo(u1.key());
        assertThat(u1.key().tenant()).as("still the tenant's namespace: tenant purges reach it").isEqualTo("default");
        assertThat(exchanges.count("cachegate.cache.bypass")).isZero();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "ineligible")).isEqualTo(4);
    }

    @Test
    void handle_private_withoutUserAndWithoutApiKeys_isNoStore() {
        start("");
        Exchange x = run(Exchanges.chatBody("private-llama", CARD));

        assertThat(x.get(CacheableRequest.KEY)).isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "sensitive")).isEqualTo(1);
    }

    @Test
    void handle_private_withoutUser_scopesToTheApiKey() {
        start("tenants: [{id: acme, api_keys: [key-one, key-two]}]");
        Exchange one = run(Exchanges.chatBody("private-llama", CARD), "Authorization", "Bearer key-one");
        Exchange oneAgain = run(Exchanges.chatBody("private-llama", CARD), "Authorization", "Bearer key-one");
        Exchange two = run(Exchanges.chatBody("private-llama", CARD), "Authorization", "Bearer key-two");

        assertThat(one.get(CacheableRequest.KEY).key()).isEqualTo(oneAgain.get(CacheableRequest.KEY).key());
        assertThat(one.get(CacheableRequest.KEY).key()).isNotEqualTo(two.get(CacheableRequest.KEY).key());
    }

    @Test
    void handle_allow_keepsTheExactKey_butNeverSemantic() {
        start("");
        Exchange clean = run(Exchanges.chatBody("allow-llama", "plain question"));
        Exchange sensitive = run(Exchanges.chatBody("allow-llama", CARD));
        Exchange reference = exchanges.chat(Exchanges.chatBody("allow-llama", CARD));
        keyStage.handle(reference, next);

        assertThat(clean.get(CacheableRequest.KEY).query()).isNotNull();
        CacheableRequest c = sensitive.get(CacheableRequest.KEY);
        assertThat(c.query()).isNull();
        assertThat(c.key()).isEqualTo(reference.get(CacheableRequest.KEY).key());
        assertThat(exchanges.count("cachegate.cache.bypass")).isZero();
    }

    private static String withUser(String message, String field, String user) {
        return "{\"model\":\"private-llama\",\"temperature\":0,\"" + field + "\":\"" + user + "\",\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"" + message + "\"}]}";
    }

    private Exchange run(String body, String... headers) {
        Exchange x = exchanges.chat(body, headers);
        keyStage.handle(x, next);
        stage.handle(x, next);
        return x;
    }

    private void start(String tenants) {
        Policy policy = Exchanges.policy(POLICY.formatted(tenants));
        exchanges = new Exchanges(policy);
        CacheKeys keys = new CacheKeys(policy, new ModelVersions());
        keyStage = new CacheKeyStage(policy, keys);
        stage = new SensitiveDataStage(policy, keys, exchanges.metrics());
    }
}
