package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.cache.semantic.ClassSpending;
import io.cachegate.cache.semantic.ClassWatch;
import io.cachegate.cache.semantic.LearnedDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The replay on synthetic streams: questions drawn around 40 centroids (neighbours at cosine about 0.94, other
 * topics near 0), answered by topic, or, adversarially, each topic's questions split between two answers at random
 * (neighbours as close, half of them wrong: nothing in the vectors or the text tells them apart).
 */
class BudgetReplayTest {

    private static final int DIMENSIONS = 64;
    private static final String TEXT = "How do I reset my password?";

    @Test
    void underTheBound_aStreamWhoseNeighboursShareAnswers_opensAndServesByMeaning_withinBudget() {
        BudgetReplay replay = new BudgetReplay(stream(3000, false, 1));

        BudgetReplay.Result bound = replay.run(0.01, 0.05, true, 0.05, 0.92, 7, null);

        assertThat(bound.lastHitRate()).as("once evidence accrued").isGreaterThan(0.5);
        assertThat(bound.lastWrongRate()).isLessThanOrEqualTo(0.01);
        assertThat(bound.hitRate()).as("the first half pays for the evidence").isLessThan(bound.lastHitRate());
    }

    @Test
    void aRestartHalfway_keepingTheEvidence_servesTheSecondHalfAsWithoutOne_losingItServesLess() {
        BudgetReplay replay = new BudgetReplay(stream(3000, false, 1));
        BudgetReplay.Result none = replay.run(0.01, 0.05, ClassSpending.Plan.DEFAULT, ClassWatch.DEFAULT, 0.05,
                LearnedDecision.bundled(0.92), 7, null, BudgetReplay.Restart.NONE, 1500);
        BudgetReplay.Result kept = replay.run(0.01, 0.05, ClassSpending.Plan.DEFAULT, ClassWatch.DEFAULT, 0.05,
                LearnedDecision.bundled(0.92), 7, null, BudgetReplay.Restart.KEEP, 1500);
        BudgetReplay.Result lost = replay.run(0.01, 0.05, ClassSpending.Plan.DEFAULT, ClassWatch.DEFAULT, 0.05,
                LearnedDecision.bundled(0.92), 7, null, BudgetReplay.Restart.LOSE, 1500);

        assertThat(none.lastHitRate()).isGreaterThan(0.5);
        assertThat(kept.lastHits()).as("the evidence read back: the same decisions").isEqualTo(none.lastHits());
        assertThat(kept.lastWrongRate()).isLessThanOrEqualTo(0.01);
        assertThat(lost.lastHits()).as("closed again until the verdicts come back").isLessThan(none.lastHits());
    }

    @Test
    void threeGatewaysSharingTheirEvidence_serveAsOneGatewayDoes_eachAloneServesLess() {
        BudgetReplay replay = new BudgetReplay(stream(3000, false, 1));
        BudgetReplay.Result one = fleet(replay, new BudgetReplay.Fleet(1, false));
        BudgetReplay.Result shared = fleet(replay, BudgetReplay.Fleet.parse("3:shared"));
        BudgetReplay.Result alone = fleet(replay, BudgetReplay.Fleet.parse("3"));

        assertThat(one.lastHitRate()).isGreaterThan(0.5);
        assertThat(shared.hits()).as("each gateway holds the fleet's evidence: one gateway's decisions")
                .isEqualTo(one.hits());
        assertThat(shared.lastHits()).isEqualTo(one.lastHits());
        assertThat(alone.hits()).as("a third of the verdicts each, and others' entries of unknown answer")
                .isLessThan(shared.hits() - 100);
        assertThat(alone.explored()).as("sent upstream instead").isGreaterThan(2 * shared.explored());
        assertThat(alone.wrongRate()).isLessThanOrEqualTo(0.01);
        for (String bad : new String[] {"0", "x", "3:alone", "3:shared:x", "-1", "99999"}) {
            assertThatThrownBy(() -> BudgetReplay.Fleet.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("N or N:shared");
        }
    }

    private static BudgetReplay.Result fleet(BudgetReplay replay, BudgetReplay.Fleet fleet) {
        return replay.run(0.01, 0.05, ClassSpending.Plan.DEFAULT, ClassWatch.DEFAULT, 0.05,
                LearnedDecision.bundled(0.92), 7, null, BudgetReplay.Restart.NONE, 1500, fleet);
    }

    @Test
    void onAStreamWhereNeighboursDisagreeAtRandom_theBoundServesNothingWrong_whileThePointEstimateDoes() {
        BudgetReplay replay = new BudgetReplay(stream(3000, true, 2));

        BudgetReplay.Result bound = replay.run(0.01, 0.05, true, 0.05, 0.92, 7, null);
        BudgetReplay.Result perBin = replay.run(0.01, 0.05, false, 0.05, 0.92, 7, null);
        BudgetReplay.Result estimate = replay.run(0.01, 0, false, 0.05, 0.92, 7, null);

        assertThat(bound.wrongRate()).isLessThanOrEqualTo(0.01);
        assertThat(perBin.wrongRate()).isLessThanOrEqualTo(0.01);
        assertThat(bound.explored()).as("every candidate explored instead").isGreaterThan(1000);
        assertThat(estimate.wrong()).as("the prior believes agreeing neighbours; the point estimate follows it for a while")
                .isGreaterThan(0);
        assertThat(estimate.wrongRate()).isGreaterThan(0.01);
    }

    /** Questions around 40 centroids; {@code split}: each question's answer is its topic's A or B at random. */
    private static List<BudgetReplay.Item> stream(int size, boolean split, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[][] centroids = new float[40][];
        for (int c = 0; c < centroids.length; c++) {
            centroids[c] = unit(gaussian(random, 1.0), null, 0);
        }
        List<BudgetReplay.Item> items = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int topic = random.nextInt(centroids.length);
            float[] v = unit(centroids[topic], gaussian(random, 0.25 / Math.sqrt(DIMENSIONS)), 1);
            String answer = "topic " + topic + (split ? (random.nextBoolean() ? " A" : " B") : "");
            items.add(new BudgetReplay.Item(TEXT, answer, v));
        }
        return items;
    }

    private static double[] gaussian(SplittableRandom random, double sigma) {
        double[] g = new double[DIMENSIONS];
        for (int i = 0; i < DIMENSIONS; i++) {
            // Box-Muller
            g[i] = sigma * Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
        }
        return g;
    }

    private static float[] unit(Object base, double[] noise, int withNoise) {
        double[] v = new double[DIMENSIONS];
        for (int i = 0; i < DIMENSIONS; i++) {
            v[i] = base instanceof float[] f ? f[i] : ((double[]) base)[i];
            if (withNoise == 1) {
                v[i] += noise[i];
            }
        }
        double norm = 0;
        for (double x : v) {
            norm += x * x;
        }
        float[] out = new float[DIMENSIONS];
        for (int i = 0; i < DIMENSIONS; i++) {
            out[i] = (float) (v[i] / Math.sqrt(norm));
        }
        return out;
    }
}
