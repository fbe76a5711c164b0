package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

class ClassWatchTest {

    private static final int COUNT = ProbabilityBins.COUNT;
    private static final double BUDGET = 0.01;
    /** The gateway's spending: delta / 20 a class, so class 0 opens after 818 right verdicts at 1%. */
    private static final ClassSpending SPENDING = new ClassSpending(BUDGET, 0.05, ClassSpending.Plan.BONFERRONI);

    /** Verdicts all in bin 0, so class 0 ("every candidate") holds them alone and the test runs fast. */
    private static final class Scope {
        final long[] right = new long[COUNT];
        final long[] wrong = new long[COUNT];
        final ClassWatch.State state;

        Scope(ClassWatch watch) {
            state = watch.start(SPENDING);
            state.catchUp(right, wrong);
        }

        void add(boolean isRight) {
            if (isRight) {
                right[0]++;
            } else {
                wrong[0]++;
            }
            state.add(0, isRight, right, wrong);
        }

        boolean open() {
            return state.open(0);
        }

        /** Verdicts at {@code rate} wrong until the class opens; false if it did not within {@code max}. */
        boolean openAt(double rate, SplittableRandom random, int max) {
            for (int i = 0; i < max && !open(); i++) {
                add(random.nextDouble() >= rate);
            }
            return open();
        }
    }

    @Test
    void parse_readsEachPart_andRejectsTheUnknown() {
        assertThat(ClassWatch.parse("off")).isSameAs(ClassWatch.OFF);
        assertThat(ClassWatch.parse("close").delta()).isEqualTo(0.05);
        ClassWatch all = ClassWatch.parse("close=0.1/window=20/audit=0.5@2");
        assertThat(all.delta()).isEqualTo(0.1);
        assertThat(all.window()).isEqualTo(20);
        assertThat(all.auditRate()).isEqualTo(0.5);
        assertThat(all.auditSpan()).isEqualTo(2);
        assertThatThrownBy(() -> ClassWatch.parse("close/sideways")).hasMessageContaining("sideways");
        assertThatThrownBy(() -> ClassWatch.parse("close=1")).hasMessageContaining("delta");
    }

    @Test
    void withNothingWatched_theClassesAreTheSpendingsOwn() {
        SplittableRandom random = new SplittableRandom(7);
        Scope scope = new Scope(ClassWatch.parse("audit=0@1"));
        for (int i = 0; i < 3_000; i++) {
            scope.add(random.nextDouble() >= 0.004);
            double[] expected = SPENDING.nestedUpper(scope.right, scope.wrong);
            assertThat(scope.state.nestedUpper()[0]).isEqualTo(expected[0]);
        }
    }

    /**
     * The rate jumps from 0.3% to 2% once the class has been open for 20,000 verdicts. The bound on all its verdicts
     * needs about 9,500 more before 0.3% and 2% average out over the budget; the drift test, restarted every 100
     * verdicts, sees the jump in about 4,000 (log 20 + log 6 alternatives + log(201 * 202) for the restart, at 0.0039 a
     * verdict for q = 2%).
     */
    @Execution(ExecutionMode.CONCURRENT) // seeded runs of its own: beside the other drift test, on the other core
    @Test
    void driftTest_closesAClassWhoseRateJumpsLongAfterItOpened_withinABoundedNumberOfVerdicts() {
        int runs = 60;
        int watchedWithin = 0;
        int plainWithin = 0;
        for (int run = 0; run < runs; run++) {
            watchedWithin += closedWithin(ClassWatch.CLOSE, run, 7_000) ? 1 : 0;
            plainWithin += closedWithin(ClassWatch.OFF, run, 7_000) ? 1 : 0;
        }
        assertThat(watchedWithin).as("closed within 7,000 verdicts of the jump, of " + runs).isGreaterThanOrEqualTo(54);
        assertThat(plainWithin).as("the bound alone, same streams").isLessThanOrEqualTo(runs / 4);
    }

    private static boolean closedWithin(ClassWatch watch, int run, int within) {
        SplittableRandom random = new SplittableRandom(1_000 + run);
        Scope scope = new Scope(watch);
        assertThat(scope.openAt(0.003, random, 10_000)).isTrue();
        for (int i = 0; i < 20_000; i++) {
            scope.add(random.nextDouble() >= 0.003);
        }
        if (!scope.open()) {
            return false; // closed before the jump (counts against the watch)
        }
        for (int i = 0; i < within; i++) {
            scope.add(random.nextDouble() >= 0.02);
            if (!scope.open()) {
                return true;
            }
        }
        return false;
    }

    /** At the budget itself, the worst case for a false alarm: closed in at most delta (0.05) of the streams. */
    @Execution(ExecutionMode.CONCURRENT) // seeded runs of its own: beside the other drift test, on the other core
    @Test
    void driftTest_closesAClassAtOrUnderTheBudgetRarely_atMostItsDelta() {
        int runs = 200;
        int closedRuns = 0;
        for (int run = 0; run < runs; run++) {
            SplittableRandom random = new SplittableRandom(5_000 + run);
            Scope scope = new Scope(ClassWatch.CLOSE);
            assertThat(scope.openAt(0.002, random, 20_000)).isTrue();
            for (int i = 0; i < 20_000 && scope.state.closings() == 0; i++) {
                scope.add(random.nextDouble() >= 0.006);
            }
            closedRuns += scope.state.closings() > 0 ? 1 : 0;
        }
        // delta 0.05 of 200 is 10; three standard deviations of a binomial(200, 0.05) more is 19
        assertThat(closedRuns).as("false closings of " + runs).isLessThanOrEqualTo(19);
    }

    @Test
    void aClassTheDriftTestClosed_reopensOnlyOnItsVerdictsSinceTheClosing() {
        Scope scope = new Scope(ClassWatch.CLOSE);
        for (int i = 0; i < 5_000; i++) {
            scope.add(true);
        }
        assertThat(scope.open()).isTrue();
        int wrongs = 0;
        while (scope.state.closings() == 0) {
            scope.add(false);
            wrongs++;
        }
        // the newest restart began up to 100 verdicts back, all right, and is worth 1 / (42 * 43) after 4,182 since the
        // opening: a handful of wrong verdicts in a row, where 9 of 5,009 leave the bound on all of them at 0.4%
        assertThat(wrongs).as("wrong verdicts in a row that close it").isBetween(2, 10);
        assertThat(scope.open()).isFalse();
        assertThat(SPENDING.nestedUpper(scope.right, scope.wrong)[0]).as("open on all its verdicts")
                .isLessThanOrEqualTo(BUDGET);
        ErrorBound share = new ErrorBound(BUDGET, 0.05 / COUNT);
        int needed = 0;
        while (share.upper(0, needed) > BUDGET) {
            needed++;
        }
        for (int i = 1; i < needed; i++) {
            scope.add(true);
            assertThat(scope.open()).as("after " + i + " right verdicts since the closing").isFalse();
        }
        scope.add(true);
        assertThat(scope.open()).as("after " + needed).isTrue();
        assertThat(SPENDING.nestedUpper(scope.right, scope.wrong)[0]).as("the bound alone opened it long before")
                .isLessThanOrEqualTo(BUDGET);
    }

    @Test
    void reearn_aClassItsBoundClosedAfterOpening_reopensOnlyOnTheVerdictsAfterTheClosing() {
        Scope plain = new Scope(ClassWatch.OFF);
        Scope reearn = new Scope(ClassWatch.parse("reearn"));
        for (Scope scope : new Scope[] {plain, reearn}) {
            while (!scope.open()) {
                scope.add(true);
            }
            scope.add(false); // just opened at 818 right: one wrong puts the bound over 1% until 1,091 verdicts
            assertThat(scope.open()).isFalse();
        }
        int plainAfter = 0;
        while (!plain.open()) {
            plain.add(true);
            plainAfter++;
        }
        int reearnAfter = 0;
        while (!reearn.open()) {
            reearn.add(true);
            reearnAfter++;
        }
        assertThat(plainAfter).as("the bound on all verdicts reopens it").isBetween(250, 300);
        assertThat(reearnAfter).as("as a fresh class: 818 right since the closing").isEqualTo(818);
    }

    /** The gateway's path: audits and explorations filed in {@link HitEvidence}, read by the decision's default watch. */
    @Test
    void hitEvidence_followsTheDefaultWatch_asTheGatewaysDecisionReadsIt() {
        HitEvidence evidence = new HitEvidence(100);
        double prior = 0.9985; // bin 11
        for (int i = 0; i < 818; i++) {
            evidence.record("route", "e" + i, 0.95f, prior, true);
        }
        assertThat(evidence.upperErrorNested("route", prior, SPENDING, ClassWatch.DEFAULT)).isLessThanOrEqualTo(BUDGET);
        evidence.record("route", "bad", 0.95f, prior, false);
        for (int i = 0; i < 300; i++) {
            evidence.record("route", "f" + i, 0.95f, prior, true);
        }
        assertThat(evidence.upperErrorNested("route", prior, SPENDING, ClassWatch.OFF))
                .as("the bound on all verdicts has reopened it").isLessThanOrEqualTo(BUDGET);
        assertThat(evidence.upperErrorNested("route", prior, SPENDING, ClassWatch.DEFAULT))
                .as("closed by the wrong verdict: re-earned on the 300 since, too few").isGreaterThan(BUDGET);
    }

    @Test
    void figures_countEachClosingByItsCause_theReopenings_andTheClassesClosedNow() {
        Scope scope = new Scope(ClassWatch.DEFAULT);
        while (!scope.open()) {
            scope.add(true);
        }
        assertThat(scope.state.figures()).as("opened, never closed").isEqualTo(ClassWatch.Figures.NONE);
        scope.add(false); // just opened at 818 right: one wrong puts its bound over 1%, re-earned on 818 right after
        assertThat(scope.state.figures()).isEqualTo(new ClassWatch.Figures(0, 1, 0, 1));
        for (int i = 0; i < 818; i++) {
            scope.add(true);
        }
        assertThat(scope.open()).isTrue();
        assertThat(scope.state.figures()).as("re-earned").isEqualTo(new ClassWatch.Figures(0, 1, 1, 0));
        for (int i = 0; i < 5_000; i++) {
            scope.add(true);
        }
        while (scope.state.closings() == 0) {
            scope.add(false); // a run of wrong verdicts: the drift test closes it while its bound would keep it open
        }
        assertThat(scope.state.figures()).isEqualTo(new ClassWatch.Figures(1, 1, 1, 1));
    }

    /** What the status page and the metrics read: a route's figures, its tenants' scopes summed, nothing started. */
    @Test
    void hitEvidence_watchFiguresByRoute_sumTheTenants_countAVerdictOnceForTheNestedClassesItCloses() {
        HitEvidence evidence = new HitEvidence(10_000);
        double prior = 0.9985; // bin 11: classes 0-11 hold its verdicts, open together and close together
        String[] scopes = {HitEvidence.scope("chat", "a"), HitEvidence.scope("chat", "b"), HitEvidence.scope("rag", "")};
        for (String scope : scopes) {
            for (int i = 0; i < 818; i++) {
                evidence.record(scope, scope + i, 0.95f, prior, true);
                evidence.upperErrorNested(scope, prior, SPENDING, ClassWatch.DEFAULT); // the decision's judgements
            }
        }
        evidence.record(scopes[0], "bad-a", 0.95f, prior, false);
        evidence.record(scopes[1], "bad-b", 0.95f, prior, false);
        evidence.record("untouched", "x", 0.95f, prior, true);

        assertThat(evidence.watchFiguresByRoute(SPENDING, ClassWatch.DEFAULT)).containsOnly(
                entry("chat", new ClassWatch.Figures(0, 2, 0, 24)), entry("rag", ClassWatch.Figures.NONE));
        assertThat(evidence.watchFiguresByRoute(SPENDING, ClassWatch.CLOSE)).as("settings no decision asked for")
                .isEmpty();
        assertThat(evidence.watchFiguresByRoute(SPENDING, ClassWatch.CLOSE)).as("and reading started none").isEmpty();
    }

    @Test
    void freshClass_asksItsAuditRate_forItsFirstVerdictsSinceOpening() {
        Scope scope = new Scope(ClassWatch.parse("audit=0.5@2")); // 2 / 1% = 200 verdicts
        assertThat(scope.state.auditRate(0)).as("nothing open").isZero();
        while (!scope.open()) {
            scope.add(true);
        }
        for (int i = 0; i < 200; i++) {
            assertThat(scope.state.auditRate(0)).isEqualTo(0.5);
            scope.add(true);
        }
        assertThat(scope.state.auditRate(0)).isZero();
    }

    @Test
    void window_keepsAClassClosedWhileItsNewestVerdictsHoldTooManyWrong() {
        Scope scope = new Scope(ClassWatch.parse("window=20")); // its newest 2,000 verdicts
        for (int i = 0; i < 5_000; i++) {
            scope.add(true);
        }
        assertThat(scope.open()).isTrue();
        for (int i = 0; i < 10; i++) {
            scope.add(false);
        }
        assertThat(scope.open()).isFalse();
        assertThat(SPENDING.nestedUpper(scope.right, scope.wrong)[0]).as("on all its verdicts it would stay open")
                .isLessThanOrEqualTo(BUDGET);
        for (int i = 0; i < 2_000; i++) {
            scope.add(true);
        }
        assertThat(scope.open()).as("the wrong ones out of the window").isTrue();
    }
}
