package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CacheKeyStageTest {

    private static final String POLICY = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"]%s}
            cache:
              exact: {store: memory, ttl: 1h}
            """;
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RecordingNext next = new RecordingNext();
    private Exchanges exchanges;

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void handle_deterministicRequest_proceedsWithItsKey() {
        CacheKeyStage stage = stage(", model_version: \"llama@1\"");
        Exchange x = exchanges.chat(HELLO);

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        CacheableRequest c = x.get(CacheableRequest.KEY);
        assertThat(c).isNotNull();
        assertThat(c.decision().read()).isTrue();
        assertThat(c.decision().write()).isTrue();
        assertThat(c.key().modelVersion()).isEqualTo("llama@1");
        assertThat(c.key().tenant()).isEqualTo(Exchange.DEFAULT_TENANT);
        assertThat(exchanges.count("cachegate.cache.bypass")).isZero();
    }

    @Test
    void handle_sameRequestTwice_sameKey_otherMessage_otherKey() {
        CacheKeyStage stage = stage(", model_version: \"llama@1\"");
        Exchange first = exchanges.chat(HELLO);
        Exchange again = exchanges.chat(HELLO);
        Exchange other = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "goodbye"));

        stage.handle(first, next);
        stage.handle(again, next);
        stage.handle(other, next);

        assertThat(first.get(CacheableRequest.KEY).key()).isEqualTo(again.get(CacheableRequest.KEY).key());
        assertThat(other.get(CacheableRequest.KEY).key()).isNotEqualTo(first.get(CacheableRequest.KEY).key());
    }

    @Test
    void handle_sampledRequest_proceedsAsBypass_andCountsTheReason() {
        CacheKeyStage stage = stage(", model_version: \"llama@1\"");
        Exchange x = exchanges.chat("{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY)).isNull();
        assertThat(x.xCache()).isEqualTo(GatewayHeaders.BYPASS);
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "nondeterministic")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "bypass")).isEqualTo(1);
    }

    @Test
    void handle_cacheControlNoStore_proceedsAsBypass_andCountsTheReason() {
        CacheKeyStage stage = stage(", model_version: \"llama@1\"");
        Exchange x = exchanges.chat(HELLO, "Cache-Control", "no-store");

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY)).isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "no_store")).isEqualTo(1);
    }

    @Test
    void handle_cacheControlNoCache_writesTheAnswerWithoutReading() {
        CacheKeyStage stage = stage(", model_version: \"llama@1\"");
        Exchange x = exchanges.chat(HELLO, "Cache-Control", "no-cache");

        stage.handle(x, next);

        CacheableRequest c = x.get(CacheableRequest.KEY);
        assertThat(c.decision().read()).isFalse();
        assertThat(c.decision().write()).isTrue();
        assertThat(exchanges.count("cachegate.cache.bypass")).isZero();
    }

    @Test
    void handle_modelVersionUnknown_proceedsAsBypass() {
        CacheKeyStage stage = stage(""); // no pin, and no replica has reported its models
        Exchange x = exchanges.chat(HELLO);

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY)).isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "model_version_unknown")).isEqualTo(1);
    }

    @Test
    void handle_replicasReportDifferentVersions_bypassesWithItsOwnReason_thenKeysOnTheNewVersion() throws Exception {
        ModelVersions versions = new ModelVersions();
        CacheKeyStage stage = stage("", versions);
        versions.update("main", URI.create("http://replica-a:8000"), card("r1"));
        versions.update("main", URI.create("http://replica-b:8000"), card("r2")); // a model swap under way
        Exchange during = exchanges.chat(HELLO);

        stage.handle(during, next);

        assertThat(during.get(CacheableRequest.KEY)).isNull();
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "model_versions_disagree")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "model_version_unknown")).isZero();

        versions.update("main", URI.create("http://replica-a:8000"), card("r2")); // the swap is complete
        Exchange after = exchanges.chat(HELLO);
        stage.handle(after, next);

        assertThat(after.get(CacheableRequest.KEY).key().modelVersion())
                .isEqualTo(ModelVersions.versionOf(card("r2").get("data").get(0)))
                .isNotEqualTo(ModelVersions.versionOf(card("r1").get("data").get(0)));
    }

    private static JsonNode card(String revision) throws JsonProcessingException {
        return JSON.readTree("{\"data\":[{\"id\":\"llama-3.1-8b\",\"root\":\"llama-3.1-8b\",\"revision\":\""
                + revision + "\"}]}");
    }

    private CacheKeyStage stage(String backendFields) {
        return stage(backendFields, new ModelVersions());
    }

    private CacheKeyStage stage(String backendFields, ModelVersions versions) {
        Policy policy = Exchanges.policy(POLICY.formatted(backendFields));
        exchanges = new Exchanges(policy);
        return new CacheKeyStage(policy, new CacheKeys(policy, versions));
    }
}
