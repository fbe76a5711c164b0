package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
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

    private CacheKeyStage stage(String backendFields) {
        Policy policy = Exchanges.policy(POLICY.formatted(backendFields));
        exchanges = new Exchanges(policy);
        return new CacheKeyStage(policy, new CacheKeys(policy, new ModelVersions()), exchanges.metrics());
    }
}
