package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.LearnedParameters;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.PairFeatures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecondSignalEvalTest {

    /** p = sigmoid(100 * cosine - 90): cosine 0.92 is p 0.88, 0.93 is 0.95, 0.95 is 0.993. */
    private static final LearnedParameters BY_COSINE = byCosine();

    /** The second model: texts ending "agrees" are its vector (1, 0); the others (0.5, 0.866). */
    private final List<String> secondModelSaw = new ArrayList<>();

    @TempDir
    Path cacheDir;

    @Test
    void run_bandCandidatesOnly_askTheSecondModel_andItsVetoBeatsLearnedAtEqualHitRate() throws Exception {
        List<SecondSignalEval.Item> items = List.of(
                pair("sure query", "sure cached", 0.95f, true),       // p 0.993: above the band, a hit as before
                pair("bee query agrees", "bee cached agrees", 0.93f, true),
                pair("sea query agrees", "sea cached", 0.93f, false), // in the band; the second model disagrees
                pair("dee query agrees", "dee cached agrees", 0.92f, true),
                pair("far query", "far cached", 0.50f, true));        // below the cosine floor: never a hit

        Map<String, Object> report = eval().run(items, 4);

        assertThat(secondModelSaw).hasSize(6).allMatch(text -> text.startsWith("q: ")).noneMatch(t -> t.contains("sure"));
        Map<String, Object> at09 = row(report, 0.9);
        // A, B and D hit (3 of 4 positives); C is vetoed: no false hit. The learned decision alone reaches
        // 3 of 4 only by letting C in too (min probability <= 0.88): 1 false hit in 4.
        assertThat(at09.get("hit_rate")).isEqualTo(0.75);
        assertThat(at09.get("false_hit_rate")).isEqualTo(0.0);
        assertThat(at09.get("learned_false_hit_rate_at_equal_hit_rate")).isEqualTo(0.25);
        assertThat(report.get("band_share_of_queries")).isEqualTo(0.6);
    }

    @Test
    void falseHitRateAt_betweenSweepPoints_interpolates() {
        List<SecondSignalEval.Point> curve = List.of(new SecondSignalEval.Point(0.5, 0.8, 0.10, 80),
                new SecondSignalEval.Point(0.9, 0.6, 0.02, 60));

        assertThat(SecondSignalEval.falseHitRateAt(curve, 0.7)).isCloseTo(0.06, within(1e-9));
        assertThat(SecondSignalEval.falseHitRateAt(curve, 0.9)).isNaN();
    }

    @Test
    void new_bandInverted_isRejectedWithTheOption() {
        assertThatThrownBy(() -> new SecondSignalEval(null, "", BY_COSINE, 0.9, 0.99, 0.8))
                .hasMessageContaining("--band");
    }

    private SecondSignalEval eval() throws Exception {
        return new SecondSignalEval(new EmbeddingDiskCache(new SecondModel(), cacheDir), "q: ", BY_COSINE, 0.90, 0.80,
                0.99);
    }

    private static SecondSignalEval.Item pair(String query, String cached, float cosine, boolean same) {
        SecondSignalEval.Outcome outcome = new SecondSignalEval.Outcome(same, !same);
        return new SecondSignalEval.Item(query, new float[] {1, 0}, List.of(new Neighbour("b", cosine, cached, 0, 0)),
                hit -> outcome);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> row(Map<String, Object> report, double agreement) {
        return ((List<Map<String, Object>>) report.get("with_second_signal")).stream()
                .filter(r -> ((Double) r.get("agreement_threshold")) == agreement).findFirst().orElseThrow();
    }

    private static LearnedParameters byCosine() {
        double[] weights = new double[PairFeatures.COUNT];
        weights[PairFeatures.NAMES.indexOf("cosine")] = 100;
        return new LearnedParameters("test", 0.95, -90, weights);
    }

    private final class SecondModel implements Embedder {

        @Override
        public CompletableFuture<float[][]> embed(List<String> texts) {
            secondModelSaw.addAll(texts);
            return CompletableFuture.completedFuture(texts.stream()
                    .map(t -> t.endsWith("agrees") ? new float[] {1, 0} : new float[] {0.5f, 0.8660254f})
                    .toArray(float[][]::new));
        }

        @Override
        public int dimension() {
            return 2;
        }

        @Override
        public String modelId() {
            return "second";
        }

        @Override
        public void close() {
        }
    }
}
