package io.cachegate.gateway.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.EntrySigner;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.FakeTicker;
import io.cachegate.testkit.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semantic caches sharing their evidence over a real Redis ({@link SharedEvidence}): each counts the fleet's
 * verdicts once, whether it runs throughout, restarts from its evidence file (resuming after the position the file
 * holds, under its old origin) or starts with no file at all (reading the whole stream).
 */
class SharedEvidenceIT {

    private static final Duration WAIT = Duration.ofSeconds(15);

    private static final double PRIOR = 0.9985;
    private static final String POOL = HitEvidence.scope("chat", "acme");

    @TempDir
    Path dir;

    /** Over a collection of its own: one stream per test run. */
    private final Policy policy = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h}
              semantic: {enabled: true, store: qdrant, qdrant: {collection: c%s}, threshold: 0.9, sweep_interval: 1h}
            """.formatted(UUID.randomUUID().toString().replace("-", "")));

    private SemanticCache open(GatewayMetrics metrics, Path file) {
        SemanticCache cache = new SemanticCache(policy.cache().semantic(), new FakeEmbedder(), new MemoryVectorIndex(),
                metrics.semantic(), new FakeTicker());
        if (file != null) {
            cache.keepEvidenceIn(file);
        }
        cache.shareEvidence(RedisTestServer.sharedUri(), 200_000, Duration.ofSeconds(1), EntrySigner.none());
        return cache;
    }

    private static void record(SemanticCache cache, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            cache.evidence().record(POOL, prefix + i, 0.95f, PRIOR, true);
        }
    }

    private static long verdicts(SemanticCache cache) {
        long[] counts = cache.evidence().verdicts(POOL, PRIOR);
        return counts[0] + counts[1];
    }

    @Test
    void eachVerdictCountsOnce_atAGatewayThatRunsThroughout_restartsFromItsFile_orStartsWithout() throws Exception {
        Path file = dir.resolve("error-budget-evidence");
        try (GatewayMetrics mb = new GatewayMetrics(); SemanticCache b = open(mb, null)) {
            try (GatewayMetrics ma = new GatewayMetrics(); SemanticCache a = open(ma, file)) {
                record(a, "a", 300);
                record(b, "b", 200);
                assertThat(Poll.until(WAIT, () -> verdicts(a) == 500 && verdicts(b) == 500))
                        .as("A holds %d, B %d", verdicts(a), verdicts(b)).isTrue();
            } // A stops: its file holds 500 verdicts and where it had read the stream
            record(b, "c", 100);
            b.evidence().demote("c7");

            try (GatewayMetrics ma = new GatewayMetrics(); SemanticCache restarted = open(ma, file)) {
                assertThat(Poll.until(WAIT, () -> verdicts(restarted) == 600 && restarted.evidence().demoted("c7")))
                        .as("the restarted A holds %d", verdicts(restarted)).isTrue();
                Thread.sleep(4 * 250);
                assertThat(verdicts(restarted)).as("its own 300 and B's first 200 not read again").isEqualTo(600);
            }
            try (GatewayMetrics mc = new GatewayMetrics(); SemanticCache newcomer = open(mc, null)) {
                assertThat(Poll.until(WAIT, () -> verdicts(newcomer) == 600))
                        .as("a newcomer holds %d", verdicts(newcomer))
                        .isTrue();
                assertThat(newcomer.evidence().demoted("c7")).isTrue();
                Thread.sleep(4 * 250);
                assertThat(verdicts(newcomer)).isEqualTo(600);
            }
            assertThat(verdicts(b)).as("B never counts its own twice").isEqualTo(600);
        }
    }
}
