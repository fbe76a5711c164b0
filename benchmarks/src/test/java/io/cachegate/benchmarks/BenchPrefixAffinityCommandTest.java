package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure parts of {@code bench prefix-affinity}: the workloads and the figures of a run. */
class BenchPrefixAffinityCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void sharedPrefix_sharesEachGroupsSystemPromptAndKeepsTurnsInOrder() throws Exception {
        PrefixWorkloads.Workload w = PrefixWorkloads.sharedPrefix(3, 1000, 4, 2, 16, "m", 7);
        assertThat(w.bodies()).hasSize(3 * 4 * 2);
        List<JsonNode> all = new ArrayList<>();
        for (byte[] b : w.bodies()) {
            all.add(JSON.readTree(b));
        }
        assertThat(all).allSatisfy(n -> {
            assertThat(n.path("stream").asBoolean()).isTrue();
            assertThat(n.path("temperature").asDouble()).isEqualTo(0.7);
            assertThat(n.path("max_tokens").asInt()).isEqualTo(16);
            assertThat(n.path("messages").get(0).path("content").asText().length()).isGreaterThanOrEqualTo(1000);
        });
        assertThat(all.stream().map(n -> n.path("messages").get(0).path("content").asText()).distinct()).hasSize(3);
        // The first 12 are first turns (one user message), the next 12 second turns extending them.
        assertThat(all.subList(0, 12)).allSatisfy(n -> assertThat(n.path("messages")).hasSize(2));
        assertThat(all.subList(12, 24)).allSatisfy(n -> assertThat(n.path("messages")).hasSize(4));
        for (int i = 0; i < 12; i++) {
            JsonNode first = all.get(i).path("messages");
            JsonNode second = all.get(12 + i).path("messages");
            assertThat(second.get(0)).isEqualTo(first.get(0));
            assertThat(second.get(1)).isEqualTo(first.get(1));
        }
    }

    @Test
    void sharedPrefix_isDeterministicForASeed() {
        List<byte[]> a = PrefixWorkloads.sharedPrefix(4, 500, 3, 1, 8, "m", 1).bodies();
        List<byte[]> b = PrefixWorkloads.sharedPrefix(4, 500, 3, 1, 8, "m", 1).bodies();
        List<byte[]> c = PrefixWorkloads.sharedPrefix(4, 500, 3, 1, 8, "m", 2).bodies();
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i)).isEqualTo(b.get(i));
        }
        assertThat(new String(a.get(0), StandardCharsets.UTF_8)).isNotEqualTo(new String(c.get(0), StandardCharsets.UTF_8));
    }

    @Test
    void trace_sendsEachInputAsOneUserMessageWithCappedMaxTokens(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t.jsonl");
        Files.writeString(file, """
                {"session_id": 0, "round": 2, "output_length": 300, "input": "hello there"}
                {"session_id": 1, "round": 2, "output_length": 5, "input": "other"}

                {"session_id": 0, "round": 3, "output_length": 10, "input": "hello there\\nok\\nmore"}
                """);
        PrefixWorkloads.Workload w = PrefixWorkloads.trace(file, "m", 32);
        assertThat(w.bodies()).hasSize(3);
        assertThat(w.description()).contains("3 requests in 2 sessions");
        JsonNode first = JSON.readTree(w.bodies().get(0));
        assertThat(first.path("max_tokens").asInt()).isEqualTo(32);
        assertThat(first.path("messages").get(0).path("role").asText()).isEqualTo("user");
        assertThat(first.path("messages").get(0).path("content").asText()).isEqualTo("hello there");
        assertThat(JSON.readTree(w.bodies().get(1)).path("max_tokens").asInt()).isEqualTo(5);
        assertThat(JSON.readTree(w.bodies().get(2)).path("messages").get(0).path("content").asText())
                .startsWith("hello there");
    }

    @Test
    void run_hitRateSumsBlocksOverReplicasAndSpreadIsMaxOverMean() {
        List<BenchScrapes.SimStats> replicas = List.of(
                new BenchScrapes.SimStats(30, 30, 0, 0, 0, 0, 100, 90, 25),
                new BenchScrapes.SimStats(10, 10, 0, 0, 0, 0, 100, 10, 2));
        assertThat(BenchPrefixAffinityCommand.Run.hitRate(replicas)).isCloseTo(0.5, within(1e-9));
        assertThat(BenchPrefixAffinityCommand.Run.maxOverMean(new long[] {30, 10})).isCloseTo(1.5, within(1e-9));
        assertThat(BenchPrefixAffinityCommand.Run.maxOverMean(new long[] {5, 5, 5, 5})).isCloseTo(1.0, within(1e-9));
        assertThat(BenchPrefixAffinityCommand.Run.maxOverMean(new long[] {0, 0})).isZero();
        assertThat(BenchPrefixAffinityCommand.Run.hitRate(List.of())).isZero();
    }

    @Test
    void minus_subtractsCountersAndKeepsTheLaterGauges() {
        BenchScrapes.SimStats before = new BenchScrapes.SimStats(5, 5, 0, 0, 0, 0, 0, 0, 0);
        BenchScrapes.SimStats after = new BenchScrapes.SimStats(25, 24, 1, 0, 1, 2, 300, 200, 15);
        BenchScrapes.SimStats d = BenchPrefixAffinityCommand.minus(after, before);
        assertThat(d.requests()).isEqualTo(20);
        assertThat(d.completed()).isEqualTo(19);
        assertThat(d.active()).isEqualTo(1);
        assertThat(d.queued()).isEqualTo(2);
        assertThat(d.prefixBlocksHit()).isEqualTo(200);
    }

    @Test
    void eventLagP99_isTheFirstBucketEdgeHoldingNinetyNinePercent() {
        String page = """
                cachegate_kv_event_lag_seconds_bucket{backend="sim",le="0.001"} 90.0
                cachegate_kv_event_lag_seconds_bucket{backend="sim",le="0.004"} 98.0
                cachegate_kv_event_lag_seconds_bucket{backend="sim",le="0.008"} 100.0
                cachegate_kv_event_lag_seconds_bucket{backend="sim",le="+Inf"} 100.0
                """;
        assertThat(KvIndexAccuracy.p99Ms(page)).isCloseTo(8.0, within(1e-9));
        assertThat(KvIndexAccuracy.p99Ms("")).isNaN();
    }

    @Test
    void json_hasOneResultPerBalanceAndFleetSize() throws Exception {
        BenchPrefixAffinityCommand command = new BenchPrefixAffinityCommand();
        new picocli.CommandLine(command).parseArgs("--balance", "kv_aware,prefix_affinity", "--gateways", "1,2");
        io.cachegate.bench.BenchReport report = io.cachegate.bench.BenchReport.fromJson(
                "{\"requests\":10,\"errors\":0,\"durationSeconds\":1,\"throughput\":10,"
                        + "\"firstByte\":{\"count\":10,\"meanMs\":100,\"p50Ms\":90,\"p90Ms\":150,\"p99Ms\":200,"
                        + "\"p999Ms\":200,\"maxMs\":200}}");
        List<BenchScrapes.SimStats> replicas = List.of(new BenchScrapes.SimStats(10, 10, 0, 0, 0, 0, 100, 40, 5));
        PrefixWorkloads.Workload w = PrefixWorkloads.sharedPrefix(2, 100, 2, 1, 8, "m", 1);
        List<BenchPrefixAffinityCommand.Run> runs = new ArrayList<>();
        for (int g : List.of(1, 2)) {
            runs.add(new BenchPrefixAffinityCommand.Run(w.name(), new BenchPrefixAffinityCommand.Config("kv_aware", g),
                    report, replicas, 0.01, 3.0, 800, 0.05));
            runs.add(new BenchPrefixAffinityCommand.Run(w.name(),
                    new BenchPrefixAffinityCommand.Config("prefix_affinity", g), report, replicas, Double.NaN,
                    Double.NaN, Double.NaN, 0.4));
        }
        JsonNode json = new PrefixAffinityReport(command, List.of(w), runs).json();
        assertThat(json.path("results")).hasSize(4);
        JsonNode first = json.path("results").get(0);
        assertThat(first.path("balance").asText()).isEqualTo("kv_aware");
        assertThat(first.path("gateways").asInt()).isEqualTo(1);
        assertThat(first.path("ttft_mean_ms").asDouble()).isEqualTo(100);
        assertThat(first.path("ttft_p90_ms").asDouble()).isEqualTo(150);
        assertThat(first.path("cached_prompt_share").asDouble()).isCloseTo(0.4, within(1e-9));
        assertThat(first.path("index_error").asDouble()).isCloseTo(0.01, within(1e-9));
        assertThat(first.path("uncached_estimate_error").asDouble()).isCloseTo(0.05, within(1e-9));
        assertThat(json.path("results").get(3).path("gateways").asInt()).isEqualTo(2);
        assertThat(new PrefixAffinityReport(command, List.of(w), runs).toText())
                .contains("kv_aware x2").contains("index within 2% of the replicas' blocks: 0.010 met");
    }
}
