package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ClassSpendingTest {

    private static final int COUNT = ProbabilityBins.COUNT;

    @Test
    void theBudgetsClass_isTheBinOfOneMinusTheBudget_withoutRoundingALevelBudgetDown() {
        assertThat(ClassSpending.Plan.budgetClass(0.01)).isEqualTo(8);
        assertThat(ClassSpending.Plan.budgetClass(0.005)).isEqualTo(9);
        assertThat(ClassSpending.Plan.budgetClass(0.02)).isEqualTo(6);
        assertThat(ClassSpending.Plan.budgetClass(0.1)).isEqualTo(4);
        assertThat(ProbabilityBins.of(1 - 0.01)).as("why it is not ProbabilityBins.of(1 - budget)").isEqualTo(7);
        assertThat(ClassSpending.Plan.parse("rel=0..0").weights(0.01)[8]).isEqualTo(1);
    }

    @Test
    void theChainedWeights_sumToOne_onTheNineClassesOfPriorsFromNinetyPercentTo999() {
        for (double budget : new double[] {0.005, 0.01, 0.02}) {
            double[] w = ClassSpending.Plan.CHAINED.weights(budget);
            assertThat(Arrays.stream(w).sum()).isCloseTo(1, within(1e-12));
            for (int j = 0; j < COUNT; j++) {
                assertThat(w[j]).as("class " + j).isCloseTo(j >= 4 && j <= 12 ? 1.0 / 9 : 0, within(1e-12));
            }
        }
        assertThat(ClassSpending.Plan.CHAINED.chain()).isTrue();
        assertThat(ClassSpending.Plan.CHAINED.priorShrink()).isEqualTo(3);
        double[] relative = ClassSpending.Plan.parse("rel=-2..3").weights(0.005);
        assertThat(relative[7]).isCloseTo(1.0 / 6, within(1e-12));
        assertThat(relative[12]).isCloseTo(1.0 / 6, within(1e-12));
        assertThat(relative[6] + relative[13]).isZero();
    }

    @Test
    void parsedShapes_sumToOne_andAreCutToTheClassesThereAre() {
        for (String spec : new String[] {"uniform", "top=5", "band=6-12", "rel=-2..3", "rel=0..4@0.5", "rel=15..30",
            "geometric=0.7"}) {
            for (double budget : new double[] {0.001, 0.005, 0.01, 0.02, 0.2}) {
                double[] w = ClassSpending.Plan.parse(spec).weights(budget);
                assertThat(Arrays.stream(w).sum()).as(spec + " at " + budget).isCloseTo(1, within(1e-9));
                assertThat(Arrays.stream(w).min().orElseThrow()).isGreaterThanOrEqualTo(0);
            }
        }
        double[] anchored = ClassSpending.Plan.parse("rel=0..4@0.5").weights(0.01);
        assertThat(anchored[8]).isCloseTo(0.5, within(1e-12));
        assertThat(anchored[9]).isCloseTo(0.125, within(1e-12));
        assertThat(anchored[12]).isCloseTo(0.125, within(1e-12));
        assertThat(ClassSpending.Plan.parse("rel=15..30").weights(0.01)[19]).as("all on the top class").isEqualTo(1);
        assertThat(ClassSpending.Plan.parse("bonferroni")).isSameAs(ClassSpending.Plan.BONFERRONI);
        assertThat(ClassSpending.Plan.parse("chained")).isSameAs(ClassSpending.Plan.CHAINED);
        assertThat(ClassSpending.Plan.parse("default")).as("the gateway's: delta / 20 a class")
                .isSameAs(ClassSpending.Plan.BONFERRONI);
        assertThatThrownBy(() -> ClassSpending.Plan.parse("band=9-3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClassSpending.Plan.parse("uniform/sideways")).hasMessageContaining("sideways");
        assertThatThrownBy(() -> ClassSpending.Plan.parse("uniform/prior=0.5")).hasMessageContaining("priorShrink");
        assertThatThrownBy(() -> ClassSpending.Plan.parse("rel=0..2@1.5")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bonferroni_isTheEarlierRule_eachClassAtDeltaOverTwenty_withThePriorAtTheBudget() {
        long[] right = new long[COUNT];
        long[] wrong = new long[COUNT];
        right[8] = 700;
        wrong[8] = 1;
        right[10] = 300;
        right[4] = 400;
        wrong[4] = 20;
        double[] upper = new ClassSpending(0.01, 0.05, ClassSpending.Plan.BONFERRONI).classUpper(right, wrong);
        ErrorBound old = new ErrorBound(0.01, 0.05 / COUNT);
        assertThat(upper[10]).isEqualTo(old.upper(0, 300));
        assertThat(upper[8]).isEqualTo(old.upper(1, 1001));
        assertThat(upper[0]).isEqualTo(old.upper(21, 1421));
    }

    @Test
    void anOpenClass_handsItsShareDown_soTheNextOneOpensOnFewerVerdicts() {
        long[] right = new long[COUNT];
        long[] wrong = new long[COUNT];
        right[12] = 650; // C_9..C_12: 650 right; C_12 opens at delta / 9 (630 needed), C_11, C_10, C_9 after it
        right[8] = 100;  // C_8 (and C_4..C_7 alike): 751 verdicts, 1 wrong: 904 needed at delta / 9, 709 at 5/9
        wrong[8] = 1;
        ClassSpending chain = new ClassSpending(0.01, 0.05, ClassSpending.Plan.CHAINED);
        ClassSpending flat = new ClassSpending(0.01, 0.05, ClassSpending.Plan.parse("band=4-12/flat/prior=3"));

        double[] chained = chain.classUpper(right, wrong);
        double[] alone = flat.classUpper(right, wrong);

        assertThat(alone[12]).isLessThanOrEqualTo(0.01);
        assertThat(alone[9]).isLessThanOrEqualTo(0.01);
        assertThat(alone[8]).as("751 verdicts, one wrong, at delta / 9 are not enough").isGreaterThan(0.01);
        assertThat(alone[3]).as("no weight of its own").isEqualTo(1);
        assertThat(chained[8]).as("at delta * 5/9, handed down from C_9..C_12").isLessThanOrEqualTo(0.01);
        assertThat(chained[4]).as("and on down the unbroken run").isLessThanOrEqualTo(0.01);
        assertThat(chained[3]).as("no weight of its own, nothing in bins 0-7: C_4's verdicts with all of delta")
                .isLessThanOrEqualTo(0.01);

        wrong[4] = 30; // bin 4 badly wrong: C_4 stays closed, and the classes below it get no share
        double[] closed = chain.classUpper(right, wrong);
        assertThat(closed[4]).isGreaterThan(0.01);
        assertThat(closed[3]).isEqualTo(1);
        double[] nested = chain.nestedUpper(right, wrong);
        assertThat(nested[5]).isLessThanOrEqualTo(0.01);
        assertThat(nested[4]).as("bin 4 is only in C_0..C_4, all closed").isGreaterThan(0.01);
    }

    /**
     * The guarantee, by Monte Carlo: bins 9-12 far under the budget (their classes open and hand their shares down),
     * bin 8 well over it, so C_8 and every class below it has a true rate above the budget (1.15%). Over seeded
     * streams of verdicts, checked every 10 verdicts, the share of streams in which ANY such class ever opens is at
     * most delta under the default plan (and no more than C_8 alone at all of delta), while the point estimate
     * (observed rate under the budget) opens one in most.
     */
    @Test
    void aClassOverTheBudget_opensInAtMostDeltaOfTheStreams_thoughOpenClassesAboveHandItTheirShares() {
        double budget = 0.01;
        double delta = 0.2;
        double[] rate = new double[COUNT];
        double[] share = new double[COUNT];
        share[12] = 0.2;
        rate[12] = 0.001;
        share[11] = 0.2;
        rate[11] = 0.001;
        share[10] = 0.2;
        rate[10] = 0.002;
        share[9] = 0.2;
        rate[9] = 0.002;
        share[8] = 0.2;
        rate[8] = 0.0515; // C_8: (0.001 + 0.001 + 0.002 + 0.002 + 0.0515) / 5 = 1.15%
        double classRate = 0;
        for (int j = 0; j < COUNT; j++) {
            classRate += share[j] * rate[j];
        }
        assertThat(classRate).isGreaterThan(budget);
        ClassSpending spending = new ClassSpending(budget, delta, ClassSpending.Plan.CHAINED);
        int seeds = 300;
        int failed = 0;
        int naive = 0;
        int upperOpened = 0;
        int alone = 0;
        ErrorBound whole = new ErrorBound(budget, delta, budget / 3);
        for (int seed = 0; seed < seeds; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long[] right = new long[COUNT];
            long[] wrong = new long[COUNT];
            boolean failedHere = false;
            boolean naiveHere = false;
            boolean upperHere = false;
            boolean aloneHere = false;
            for (int n = 1; n <= 6000; n++) {
                double u = random.nextDouble();
                int bin = 12 - (int) (u * 5);
                if (random.nextDouble() < rate[bin]) {
                    wrong[bin]++;
                } else {
                    right[bin]++;
                }
                if (n % 10 == 0) {
                    double[] upper = spending.classUpper(right, wrong);
                    for (int j = 0; j <= 8; j++) {
                        failedHere |= upper[j] <= budget;
                    }
                    upperHere |= upper[9] <= budget;
                    long k = 0;
                    long all = 0;
                    for (int j = 8; j < COUNT; j++) {
                        k += wrong[j];
                        all += right[j] + wrong[j];
                    }
                    naiveHere |= n >= 200 && (double) k / all <= budget;
                    aloneHere |= whole.upper(k, all) <= budget;
                }
            }
            failed += failedHere ? 1 : 0;
            naive += naiveHere ? 1 : 0;
            upperOpened += upperHere ? 1 : 0;
            alone += aloneHere ? 1 : 0;
        }
        assertThat((double) upperOpened / seeds).as("the classes above open and hand down their shares")
                .isGreaterThan(0.9);
        assertThat((double) naive / seeds).as("the observed rate dips under the budget").isGreaterThan(0.5);
        assertThat((double) failed / seeds).isLessThanOrEqualTo(delta);
        assertThat(failed).as("no more often than C_8 alone would at all of delta: the shares handed down to it "
                + "never add up to more").isLessThanOrEqualTo(alone);
        assertThat(alone).as("which does fail at times: the case is close to the line").isGreaterThan(0);
    }
}
