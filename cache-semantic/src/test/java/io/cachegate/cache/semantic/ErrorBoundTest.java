package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ErrorBoundTest {

    private static final double DELTA = 0.05;

    /**
     * The anytime guarantee: over many seeded Bernoulli streams, the share in which the true rate is above the bound
     * at ANY step of the stream is at most delta (a fixed-n interval checked at every step would fail far more).
     */
    @Execution(ExecutionMode.CONCURRENT) // independent seeded runs, the invocations on both cores
    @ParameterizedTest
    @CsvSource({"0.01, 0.01", "0.005, 0.01", "0.02, 0.01", "0.01, 0.02", "0.004, 0.005"})
    void upper_coversTheTrueRateAtEveryStep_inAllButDeltaOfTheStreams(double trueRate, double budget) {
        int seeds = 400;
        int failed = failedStreams(new ErrorBound(budget, DELTA), trueRate, seeds, 0);
        assertThat((double) failed / seeds).isLessThanOrEqualTo(DELTA);
    }

    /** The same with the prior's mean at a third of the budget, as the error budget's classes use it. */
    @Execution(ExecutionMode.CONCURRENT) // independent seeded runs, the invocations on both cores
    @ParameterizedTest
    @CsvSource({"0.01, 0.01", "0.011, 0.01", "0.0055, 0.005", "0.02, 0.02"})
    void aPriorMeanUnderTheBudget_staysValid(double trueRate, double budget) {
        int seeds = 1000;
        int failed = failedStreams(new ErrorBound(budget, DELTA, budget / 3), trueRate, seeds, 1000);
        // Its true failure rate is 3.5-4.2% here (a Python Monte Carlo of 4,000 streams), closer to delta than the
        // prior at the budget's: allow two standard errors of 1,000 seeded streams.
        assertThat((double) failed / seeds).isLessThanOrEqualTo(DELTA + 2 * Math.sqrt(DELTA * (1 - DELTA) / seeds));
    }

    @Test
    void aPriorMeanAtAThirdOfTheBudget_opensOnFewerVerdicts_withNoneOrAFewWrong() {
        // at delta / 20, as the earlier classes: 818 against 718 with none wrong, 1,091 against 999 with one
        ErrorBound atBudget = new ErrorBound(0.01, DELTA / 20);
        ErrorBound third = new ErrorBound(0.01, DELTA / 20, 0.01 / 3);
        assertThat(atBudget.upper(0, 817)).isGreaterThan(0.01);
        assertThat(atBudget.upper(0, 819)).isLessThanOrEqualTo(0.01);
        assertThat(third.upper(0, 717)).isGreaterThan(0.01);
        assertThat(third.upper(0, 719)).isLessThanOrEqualTo(0.01);
        assertThat(atBudget.upper(1, 1090)).isGreaterThan(0.01);
        assertThat(third.upper(1, 1000)).isLessThanOrEqualTo(0.01);
        for (int wrong = 0; wrong <= 20; wrong++) {
            long needAtBudget = firstUnder(atBudget, wrong);
            assertThat(firstUnder(third, wrong)).as(wrong + " wrong").isLessThanOrEqualTo(needAtBudget);
        }
        assertThatThrownBy(() -> new ErrorBound(0.01, DELTA, 0.02)).hasMessageContaining("priorMean");
    }

    /**
     * Of {@code seeds} seeded Bernoulli streams of 3,000 verdicts at {@code trueRate}, how many had the bound below the
     * true rate at some step. Each (wrong, n) is bounded once: the streams visit the same few pairs again and again,
     * and a bound is a bisection (bounding every step of every stream took 6 s an invocation).
     */
    private static int failedStreams(ErrorBound bound, double trueRate, int seeds, int firstSeed) {
        Map<Long, Boolean> under = new HashMap<>();
        int failed = 0;
        for (int seed = firstSeed; seed < firstSeed + seeds; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long wrong = 0;
            for (int n = 1; n <= 3000; n++) {
                if (random.nextDouble() < trueRate) {
                    wrong++;
                }
                long w = wrong;
                int at = n;
                if (under.computeIfAbsent(w << 32 | at, k -> bound.upper(w, at) < trueRate)) {
                    failed++;
                    break;
                }
            }
        }
        return failed;
    }

    private static long firstUnder(ErrorBound bound, int wrong) {
        long n = Math.max(wrong, 1);
        while (bound.upper(wrong, n) > 0.01) {
            n += 1;
        }
        return n;
    }

    @Test
    void aFixedSampleInterval_checkedAtEveryStep_failsMoreOftenThanItsNominalRate() {
        // Why the bound is a confidence sequence: the one-sided 95% normal bound, looked at after every verdict.
        int seeds = 400;
        int failed = 0;
        for (int seed = 0; seed < seeds; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long wrong = 0;
            for (int n = 1; n <= 3000; n++) {
                wrong += random.nextDouble() < 0.05 ? 1 : 0;
                double rate = (double) wrong / n;
                if (n >= 30 && rate + 1.645 * Math.sqrt(rate * (1 - rate) / n) < 0.05) {
                    failed++;
                    break;
                }
            }
        }
        assertThat((double) failed / seeds).isGreaterThan(2 * DELTA);
    }

    @Test
    void withoutVerdicts_theBoundIsOne_andItFallsUnderTheBudgetAfterAboutFiveHundredRightOnes() {
        ErrorBound bound = new ErrorBound(0.01, DELTA);
        assertThat(bound.upper(0, 0)).isEqualTo(1);
        assertThat(bound.upper(0, 1)).isGreaterThan(0.5);
        assertThat(bound.upper(0, 450)).isGreaterThan(0.01);
        assertThat(bound.upper(0, 520)).isLessThan(0.01);
        // (ln(1 + n/99) + ln 20) / n, the closed form with no wrong verdict
        assertThat(-Math.log1p(-bound.upper(0, 1000))).isCloseTo((Math.log(1099 / 99.0) + Math.log(20)) / 1000,
                within(1e-9));
    }

    @Test
    void theBound_liesAboveTheObservedRate_andApproachesItAsVerdictsAccrue() {
        ErrorBound bound = new ErrorBound(0.01, DELTA);
        assertThat(bound.upper(5, 1000)).isBetween(0.005, 0.02);
        assertThat(bound.upper(50, 10_000)).isBetween(0.005, 0.008);
        assertThat(bound.upper(3, 3)).isEqualTo(1);
        assertThat(bound.upper(1, 500)).as("one wrong verdict keeps a young bin closed").isGreaterThan(0.01);
    }

    @Test
    void logGamma_matchesFactorials() {
        assertThat(ErrorBound.logGamma(1)).isCloseTo(0, within(1e-12));
        assertThat(ErrorBound.logGamma(11)).isCloseTo(Math.log(3628800), within(1e-10));
        assertThat(ErrorBound.logGamma(0.5)).isCloseTo(0.5 * Math.log(Math.PI), within(1e-12));
    }

    @Test
    void badArguments_areRefused() {
        assertThatThrownBy(() -> new ErrorBound(0, DELTA)).hasMessageContaining("budget");
        assertThatThrownBy(() -> new ErrorBound(0.01, 1)).hasMessageContaining("delta");
        assertThatThrownBy(() -> new ErrorBound(0.01, DELTA).upper(2, 1)).hasMessageContaining("wrong");
    }
}
