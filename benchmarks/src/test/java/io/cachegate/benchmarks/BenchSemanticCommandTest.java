package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The parts of {@code bench semantic} that need neither child processes nor the model. */
class BenchSemanticCommandTest {

    private static BenchSemanticCommand parse(String... args) {
        BenchSemanticCommand command = new BenchSemanticCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void plan_defaultsRunEveryPartWithTheDefaultEmbedder() {
        BenchSemanticCommand.Plan plan = parse().plan();
        assertThat(plan.latency()).isTrue();
        assertThat(plan.embedder()).isTrue();
        assertThat(plan.search()).isTrue();
        assertThat(plan.duration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(plan.gatewayEmbedder()).isEqualTo(EmbedderThroughputBench.Variant.defaults());
        assertThat(plan.variants()).containsExactly(EmbedderThroughputBench.Variant.defaults(),
                new EmbedderThroughputBench.Variant(32, 1, 0));
    }

    @Test
    void plan_fp32Model_defaultVariantIsItsBatchingDefault() {
        BenchSemanticCommand.Plan plan = parse("--embedder-model", "bundled-fp32").plan();

        assertThat(plan.variants()).containsExactly(new EmbedderThroughputBench.Variant(
                EmbedderSettings.FP32_MAX_BATCH, EmbedderSettings.defaults().workers(), 0),
                new EmbedderThroughputBench.Variant(32, 1, 0));
        assertThatThrownBy(parse("--embedder-model", "fp16")::plan).hasMessageContaining("--embedder-model must be one"
                + " of bundled, bundled-fp32 (was \"fp16\")");
    }

    @Test
    void plan_onePart() {
        BenchSemanticCommand.Plan plan = parse("--part", "search").plan();
        assertThat(plan.latency()).isFalse();
        assertThat(plan.embedder()).isFalse();
        assertThat(plan.search()).isTrue();
    }

    @Test
    void plan_badValues_areAllNamed() {
        BenchSemanticCommand command = parse("--part", "everything", "--rate", "0", "--duration", "soon",
                "--embedder-variants", "1x2,fast", "--scopes", "0", "--k", "0", "--write-every", "-1",
                "--query-kinds", "near,far", "--vectors", "random,real");
        assertThatThrownBy(command::plan).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--part").hasMessageContaining("--rate").hasMessageContaining("--duration")
                .hasMessageContaining("\"fast\"").hasMessageContaining("--scopes").hasMessageContaining("--k")
                .hasMessageContaining("--write-every").hasMessageContaining("--query-kinds")
                .hasMessageContaining("--vectors must name random and/or clustered (was random,real)");
    }

    @Test
    void vectorSearchBench_measuresSearchesAloneThenWithWrites_forEachQueryKind() throws Exception {
        List<VectorSearchBench.Result> results = new VectorSearchBench(400, 100, 5, 10, Duration.ofMillis(300), null, List.of("random", "near"),
                BenchVectors.of("random", 400, VectorSearchBench.DIMENSION)).run("4 scopes", 4);

        assertThat(results).extracting(VectorSearchBench.Result::label)
                .containsExactly("4 scopes", "4 scopes + writes", "4 scopes", "4 scopes + writes");
        assertThat(results).extracting(VectorSearchBench.Result::queryKind).containsExactly("random", "random", "near", "near");
        assertThat(results).extracting(VectorSearchBench.Result::writeEvery).containsExactly(0, 10, 0, 10);
        assertThat(results.get(0).foundNear()).isNaN();
        // 100 entries a scope are compared one by one: the entry a near query was made from is always found.
        assertThat(results.get(2).foundNear()).isEqualTo(1.0);
        assertThat(results).allSatisfy(r -> {
            assertThat(r.meanResults()).isEqualTo(5.0);  // 100 entries a scope: always k
            assertThat(r.p50Ms()).isPositive().isLessThanOrEqualTo(r.p99Ms());
            assertThat(r.p99Ms()).isLessThanOrEqualTo(r.p999Ms());
            assertThat(r.p999Ms()).isLessThanOrEqualTo(r.maxMs());
        });
    }

    @Test
    void vectorSearchBench_clusteredVectors_findsTheNearEntry() throws Exception {
        List<VectorSearchBench.Result> results = new VectorSearchBench(400, 100, 5, 0, null, List.of("near"),
                BenchVectors.of("clustered", 400, VectorSearchBench.DIMENSION)).run("2 scopes", 2);

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.vectors()).isEqualTo("clustered");
            assertThat(r.foundNear()).isEqualTo(1.0);
        });
    }

    @Test
    void clusteredVectors_unrelatedAndSameTopicCosinesAsStated() {
        // 2,000 entries: 20 topics of about 100 each.
        BenchVectors vectors = BenchVectors.of("clustered", 2_000, VectorSearchBench.DIMENSION);
        SplittableRandom random = new SplittableRandom(3);
        float[][] v = new float[400][];
        for (int i = 0; i < v.length; i++) {
            v[i] = vectors.next(random, VectorSearchBench.DIMENSION);
        }
        double sum = 0;
        double highest = -1;
        int pairs = 0;
        for (int i = 0; i < v.length; i++) {
            assertThat(dot(v[i], v[i])).isCloseTo(1.0, within(1e-4));
            for (int j = i + 1; j < v.length; j++) {
                double cosine = dot(v[i], v[j]);
                sum += cosine;
                highest = Math.max(highest, cosine);
                pairs++;
            }
        }
        // Pairs are of one topic 1 time in 20 (cosine ~0.75) and else unrelated (~0.40): mean ~0.42.
        assertThat(sum / pairs).isCloseTo(BenchVectors.SHARED + BenchVectors.TOPIC / 20, within(0.02));
        assertThat(highest).isBetween(0.75, 0.93);
        double randomPair = dot(BenchVectors.of("random", 2_000, VectorSearchBench.DIMENSION).next(random, 384),
                BenchVectors.unit(random, 384));
        assertThat(randomPair).isCloseTo(0, within(0.25));
    }

    private static double dot(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) {
            d += a[i] * b[i];
        }
        return d;
    }

    @Test
    void nearQuery_isAUnitVectorAtTheStatedCosine() {
        SplittableRandom random = new SplittableRandom(7);
        float[] v = VectorSearchBench.unitVector(random);
        float[] q = VectorSearchBench.nearTo(v, random);
        double dot = 0;
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            dot += v[i] * q[i];
            norm += q[i] * q[i];
        }
        assertThat(norm).isCloseTo(1.0, within(1e-4));
        assertThat(dot).isCloseTo(VectorSearchBench.NEAR_COSINE, within(1e-4));
    }

    @Test
    void variant_parsesBatchWorkersAndOptionalIntraThreads() {
        assertThat(EmbedderThroughputBench.Variant.parse("32x1")).isEqualTo(new EmbedderThroughputBench.Variant(32, 1, 0));
        assertThat(EmbedderThroughputBench.Variant.parse("4x2x1")).isEqualTo(new EmbedderThroughputBench.Variant(4, 2, 1));
        assertThatThrownBy(() -> EmbedderThroughputBench.Variant.parse("0x1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void distinctPrompts_neverRepeatAndAreDeterministic() {
        DistinctPrompts source = new DistinctPrompts(0);
        Set<String> bodies = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            bodies.add(new String(source.next().body(), StandardCharsets.UTF_8));
        }
        assertThat(bodies).hasSize(2_000);
        assertThat(DistinctPrompts.prompt(7)).isEqualTo(DistinctPrompts.prompt(7)).startsWith("Ticket 7, ");
        assertThat(new String(DistinctPrompts.body(7), StandardCharsets.UTF_8))
                .contains("\"temperature\":0", "\"max_tokens\":16").doesNotContain("\"stream\"");
    }

    @Test
    void prometheusHistogram_differenceAndQuantiles() {
        String before = """
                cachegate_semantic_embed_latency_seconds_bucket{le="0.001"} 1
                cachegate_semantic_embed_latency_seconds_bucket{le="0.005"} 2
                cachegate_semantic_embed_latency_seconds_bucket{le="+Inf"} 2
                """;
        String after = """
                cachegate_semantic_embed_latency_seconds_bucket{le="0.001"} 1
                cachegate_semantic_embed_latency_seconds_bucket{le="0.005"} 92
                cachegate_semantic_embed_latency_seconds_bucket{le="+Inf"} 102
                cachegate_semantic_search_latency_seconds_bucket{le="0.001"} 50
                """;
        PrometheusHistogram h = PrometheusHistogram.parse(after, SemanticLatencyBench.EMBED_HISTOGRAM)
                .minus(PrometheusHistogram.parse(before, SemanticLatencyBench.EMBED_HISTOGRAM));
        assertThat(h.count()).isEqualTo(100);
        assertThat(h.quantile(0.5)).isEqualTo(0.005);
        assertThat(h.quantile(0.99)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(PrometheusHistogram.empty().quantile(0.5)).isNaN();
    }

    @Test
    void lookups_byLayerAndOutcome() {
        String page = """
                cachegate_cache_lookups_total{layer="exact",outcome="miss",} 10.0
                cachegate_cache_lookups_total{layer="semantic",outcome="miss",} 9.0
                cachegate_cache_lookups_total{layer="semantic",outcome="hit",} 1.0
                """;
        assertThat(BenchScrapes.lookups(page))
                .isEqualTo(Map.of("exact/miss", 10L, "semantic/miss", 9L, "semantic/hit", 1L));
    }

    @Test
    void report_textShowsBaselinesRatiosAndTargets() {
        EmbedderThroughputBench.Variant defaults = EmbedderThroughputBench.Variant.defaults();
        SemanticBenchReport.Embedder embedder = new SemanticBenchReport.Embedder("bge@1/cls/512", 16, 5,
                List.of(new SemanticBenchReport.Raw(1, List.of(100.0, 110.0, 90.0), List.of(9.0, 8.0, 11.0)),
                        new SemanticBenchReport.Raw(32, List.of(120.0), List.of(260.0))),
                List.of(new SemanticBenchReport.Batched(defaults, true, List.of(95.0)),
                        new SemanticBenchReport.Batched(new EmbedderThroughputBench.Variant(32, 1, 0), false, List.of(60.0))));
        SemanticLatencyBench.Round round = new SemanticLatencyBench.Round(report(1.0, 3.0), report(4.0, 20.0), 100, 100);
        SemanticLatencyBench.Result latency = new SemanticLatencyBench.Result(new SemanticLatencyBench.Settings(100,
                Duration.ofSeconds(10), Duration.ofSeconds(5), 1, 0, defaults, false, 0), List.of(round),
                Map.of("semantic/miss", 100L), 2.5, 5, 0.25, 1, 0);
        VectorSearchBench.Result search = new VectorSearchBench.Result("100 scopes + writes", "clustered", "near", 100_000, 100, 5, 30, 10,
                2000, 0.7, 1.9, 4.25, 8, 5, 0.995, 0.412);
        String text = new SemanticBenchReport(2, latency, embedder, List.of(new SemanticBenchReport.Search(search)))
                .toText();
        assertThat(text)
                .contains("Added: p50 3.000 ms (target <= 5: met), p99 17.000 ms (target <= 15: NOT met)")
                .contains("model bge@1/cls/512", "raw ONNX loop, batch 1 (call p50 9.00 ms)",
                        "embedder max_batch 1, workers 2")
                .contains("0.95", "met")
                .contains("Best setting: max_batch 1, workers 2")
                .contains("100 scopes + writes", "clustered", "1.900", "4.250", "99.5%", "0.412");
        assertThat(new SemanticBenchReport(2, latency, embedder, null).toJson())
                .contains("\"addedP50Ms\" : 3.0", "\"ratioSameBatch\" : 0.95", "\"bestRaw\" : 120.0");
    }

    private static BenchReport report(double p50, double p99) {
        LatencySummary total = new LatencySummary(1000, p50, p50, p50, p99, p99, p99);
        return new BenchReport(1000, 0, Map.of(), Map.of(200, 1000L), 10, 100, total, total);
    }
}
