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
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semantic caches sharing their evidence over a real Redis ({@link SharedEvidence}): each counts the fleet's
 * verdicts once, whether it runs throughout, restarts from its evidence file (resuming after the position the file
 * holds, under its old origin, taking none of the sequence numbers it had taken, so a signed record copied into the
 * stream while it was down is not taken again) or starts with no file at all (reading the whole stream).
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
        return open(metrics, file, EntrySigner.none());
    }

    private SemanticCache open(GatewayMetrics metrics, Path file, EntrySigner signer) {
        SemanticCache cache = new SemanticCache(policy.cache().semantic(), new FakeEmbedder(), new MemoryVectorIndex(),
                metrics.semantic(), new FakeTicker());
        if (file != null) {
            cache.keepEvidenceIn(file);
        }
        cache.shareEvidence(RedisTestServer.sharedUri(), 200_000, Duration.ofSeconds(1), signer);
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

    @Test
    void signed_aGatewayRestartedFromItsFile_takesNoCopyOfWhatItHadRead_plantedWhileItWasDown() throws Exception {
        Path file = dir.resolve("error-budget-evidence");
        EntrySigner key = EntrySigner.hmacSha256("k".repeat(32).getBytes(StandardCharsets.UTF_8));
        try (GatewayMetrics mb = new GatewayMetrics(); SemanticCache b = open(mb, null, key)) {
            try (GatewayMetrics ma = new GatewayMetrics(); SemanticCache a = open(ma, file, key)) {
                record(b, "b", 200);
                assertThat(Poll.until(WAIT, () -> verdicts(a) == 200)).as("A holds %d", verdicts(a)).isTrue();
            } // A stops: its file holds B's 200 verdicts, where it had read, and B's numbers it took
            String stream = b.sharing().orElseThrow().stream();
            String origin = b.sharing().orElseThrow().origin();
            replay(stream, origin); // whoever can write to Redis copies B's signed records to the stream's end
            record(b, "c", 10);

            try (GatewayMetrics ma = new GatewayMetrics(); SemanticCache restarted = open(ma, file, key)) {
                assertThat(Poll.until(WAIT, () -> verdicts(restarted) >= 210)).as("A holds %d", verdicts(restarted))
                        .isTrue();
                Thread.sleep(4 * 250);
                assertThat(verdicts(restarted)).as("B's 200 not taken again from their copies").isEqualTo(210);
                assertThat(restarted.sharing().orElseThrow().duplicates()).as("%s", restarted.sharing()).isEqualTo(200);
            }
        }
    }

    /** Appends a copy of each record {@code origin} wrote to {@code stream}, byte for byte: a replay. */
    private static void replay(String stream, String origin) {
        RedisClient client = RedisClient.create(RedisTestServer.sharedUri());
        try (var raw = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE))) {
            for (StreamMessage<String, byte[]> m : raw.sync().xrange(stream, Range.create("-", "+"))) {
                byte[] from = m.getBody().get("o"); // the writer's origin (RedisJournal's field)
                if (from != null && origin.equals(new String(from, StandardCharsets.UTF_8))) {
                    raw.sync().xadd(stream, m.getBody());
                }
            }
        } finally {
            client.shutdown();
        }
    }
}
