package io.cachegate.gateway.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.EvidenceFile;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testkit.FakeTicker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The error budget's evidence outlives a restart: a semantic cache keeping it in a file reads it at start and
 * writes it at close, so a restarted gateway does not begin again from closed classes and forgotten demotions.
 */
class SemanticCacheEvidenceTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h}
              semantic: {enabled: true, threshold: 0.9, sweep_interval: 1h}
            """);
    private static final double PRIOR = 0.9985;

    @TempDir
    Path dir;

    private SemanticCache open(GatewayMetrics metrics) {
        return new SemanticCache(POLICY.cache().semantic(), new FakeEmbedder(), new MemoryVectorIndex(),
                metrics.semantic(), new FakeTicker());
    }

    private static double fileOutcome(GatewayMetrics metrics, String outcome) {
        var counter = metrics.registry().find("cachegate.semantic.evidence.file").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void restart_readsWhatTheLastCloseWrote() {
        Path file = dir.resolve("error-budget-evidence");
        try (GatewayMetrics metrics = new GatewayMetrics(); SemanticCache first = open(metrics)) {
            first.keepEvidenceIn(file);
            assertThat(first.evidence().entries()).as("nothing to read yet").isZero();
            assertThat(fileOutcome(metrics, "none")).isEqualTo(1);
            for (int i = 0; i < 900; i++) {
                first.evidence().record(HitEvidence.scope("chat", "acme"), "e" + i, 0.95f, PRIOR, true);
            }
            first.evidence().demote("wrong-entry");
        }
        assertThat(file).exists();
        try (GatewayMetrics metrics = new GatewayMetrics(); SemanticCache second = open(metrics)) {
            second.keepEvidenceIn(file);
            assertThat(fileOutcome(metrics, "read")).isEqualTo(1);
            assertThat(second.evidence().verdicts(HitEvidence.scope("chat", "acme"), PRIOR)).containsExactly(900, 0);
            assertThat(second.evidence().verdicts(HitEvidence.scope("chat", "other"), PRIOR))
                    .as("another tenant's scope stays its own").containsExactly(0, 0);
            assertThat(second.evidence().demoted("wrong-entry")).isTrue();
        }
    }

    @Test
    void aFileThatCannotBeRead_startsWithoutEvidence_andIsReplacedAtClose() throws IOException {
        Path file = dir.resolve("error-budget-evidence");
        Files.writeString(file, "half a file");
        try (GatewayMetrics metrics = new GatewayMetrics(); SemanticCache cache = open(metrics)) {
            cache.keepEvidenceIn(file);
            assertThat(cache.evidence().entries()).isZero();
            assertThat(fileOutcome(metrics, "unreadable")).isEqualTo(1);
            cache.evidence().record(HitEvidence.scope("chat", "acme"), "e", 0.95f, PRIOR, true);
        }
        HitEvidence reread = new HitEvidence(10);
        assertThat(EvidenceFile.read(file, EvidenceFile.fingerprint(new FakeEmbedder().modelId()), reread)).isTrue();
        assertThat(reread.verdicts(HitEvidence.scope("chat", "acme"), PRIOR)).containsExactly(1, 0);
    }
}
