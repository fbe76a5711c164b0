package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BudgetedDecisionTest {

    private static final String QUERY = "How do I reset my password?";
    private static final String CACHED = "How can I reset my password?";

    private final HitEvidence evidence = new HitEvidence(100);
    private final LearnedDecision learned = LearnedDecision.bundled(0.9);
    private final NeighbourhoodAgreement agreement = new NeighbourhoodAgreement(evidence.answers());
    private final BudgetedDecision budget = new BudgetedDecision(learned, agreement, evidence, 0.01);

    @Test
    void anUncertainCandidate_isNotServed_butReturnedToExplore() {
        Neighbour n = new Neighbour("e1", 0.95f, CACHED, 0, Long.MAX_VALUE);
        double prior = learned.probability(QUERY, CACHED, 0.95f);
        assertThat(prior).as("the classifier alone is not sure enough").isBetween(0.5, 0.99);

        BudgetedDecision.Judgement judged = budget.judge("route", QUERY, List.of(n), 0);

        assertThat(judged.served()).isEmpty();
        assertThat(judged.explore()).extracting(c -> c.neighbour().entryKey()).containsExactly("e1");
        assertThat(judged.explore().get(0).prior()).isEqualTo(prior);
    }

    @Test
    void theSameCandidate_isServed_onceRightVerdictsBringItWithinBudget() {
        Neighbour n = new Neighbour("e1", 0.95f, CACHED, 0, Long.MAX_VALUE);
        // A prior of about 0.9 counts as two verdicts: it takes about twenty right ones to reach 0.99.
        for (int i = 0; i < 25; i++) {
            evidence.record("route", "e1", 0.93f, 0.97, true);
        }

        BudgetedDecision.Judgement judged = budget.judge("route", QUERY, List.of(n), 0);

        assertThat(judged.served()).isPresent();
        assertThat(judged.served().get().estimate()).isGreaterThanOrEqualTo(0.99);
        assertThat(judged.explore()).isEmpty();
    }

    @Test
    void theCandidateWithTheHighestEstimateWins_andTheOthersAreExplored() {
        Neighbour closer = new Neighbour("closer", 0.97f, CACHED, 0, Long.MAX_VALUE);
        Neighbour proven = new Neighbour("proven", 0.95f, "Help me reset my password", 0, Long.MAX_VALUE);
        evidence.record("route", "closer", 0.98f, 0.97, false);
        for (int i = 0; i < 8; i++) {
            evidence.record("route", "proven", 0.92f, 0.97, true);
        }

        BudgetedDecision.Judgement judged = budget.judge("route", QUERY, List.of(closer, proven), 0);

        assertThat(judged.served()).map(c -> c.neighbour().entryKey()).contains("proven");
        assertThat(judged.explore()).extracting(c -> c.neighbour().entryKey()).containsExactly("closer");
    }

    @Test
    void vetoesAndTheFloorStillApply() {
        Neighbour number = new Neighbour("n", 0.99f, "How do I reset my password 2?", 0, Long.MAX_VALUE);
        Neighbour far = new Neighbour("f", 0.5f, "What are your opening hours?", 0, Long.MAX_VALUE);

        BudgetedDecision.Judgement judged = budget.judge("route", QUERY, List.of(number, far), 0);

        assertThat(judged.served()).isEmpty();
        assertThat(judged.explore()).isEmpty();
    }

    @Test
    void neighboursSharingTheAnswer_makeACandidateBelowTheThreshold_andServeIt() {
        BudgetedDecision strict = new BudgetedDecision(LearnedDecision.bundled(0.95), agreement, evidence, 0.01);
        List<Neighbour> neighbours = new ArrayList<>(agreeingOnTheResetAnswer());
        neighbours.add(new Neighbour("b1", 0.70f, "What are your opening hours?", 0, Long.MAX_VALUE));
        evidence.answers().file("b1", "9 to 5.");

        BudgetedDecision.Judgement judged = strict.judge("route", QUERY, neighbours, 0);

        assertThat(judged.served()).map(c -> c.neighbour().entryKey()).contains("a1");
        assertThat(judged.served().get().prior()).isGreaterThanOrEqualTo(0.99);
        assertThat(judged.explore()).extracting(c -> c.neighbour().entryKey()).containsExactly("a2", "a3", "a4");
    }

    @Test
    void neighboursDisagreeing_giveNoHit_andALoneEntryBelowTheThresholdIsNoCandidate() {
        List<Neighbour> neighbours = List.of(
                new Neighbour("a1", 0.89f, "I forgot my password, how do I set a new password?", 0, Long.MAX_VALUE),
                new Neighbour("b1", 0.885f, "How do I change my e-mail address?", 0, Long.MAX_VALUE),
                new Neighbour("a2", 0.86f, "Reset password please", 0, Long.MAX_VALUE),
                new Neighbour("c1", 0.88f, "How do I delete my account?", 0, Long.MAX_VALUE));
        evidence.answers().file("a1", "Use the 'Forgot password' link.");
        evidence.answers().file("a2", "Use the 'Forgot password' link.");
        evidence.answers().file("b1", "Under Settings, Profile.");
        evidence.answers().file("c1", "Write to support.");

        BudgetedDecision.Judgement judged = budget.judge("route", QUERY, neighbours, 0);

        assertThat(judged.served()).as("two of four agree, the others are as close").isEmpty();
        assertThat(judged.explore()).extracting(c -> c.neighbour().entryKey()).containsExactly("a1", "a2");
    }

    @Test
    void aRequestThreshold_raisesTheAgreementFloorToo() {
        List<Neighbour> neighbours = agreeingOnTheResetAnswer();
        assertThat(budget.judge("route", QUERY, neighbours, 0).served()).isPresent();

        BudgetedDecision.Judgement stricter = budget.judge("route", QUERY, neighbours, 0.95);

        assertThat(stricter.served()).isEmpty();
        assertThat(stricter.explore()).isEmpty();
    }

    @Test
    void underTheBound_aScopeWithoutVerdicts_servesNothing_evenAnAgreeingNeighbourhood() {
        BudgetedDecision bounded = new BudgetedDecision(learned, agreement, evidence, 0.01, 0.05, false);
        List<Neighbour> neighbours = agreeingOnTheResetAnswer();
        assertThat(budget.judge("route", QUERY, neighbours, 0).served()).as("the point estimate serves it").isPresent();

        BudgetedDecision.Judgement judged = bounded.judge("route", QUERY, neighbours, 0);

        assertThat(judged.served()).isEmpty();
        assertThat(judged.explore()).hasSize(4).allSatisfy(c -> assertThat(c.upperError()).isEqualTo(1));
    }

    @Test
    void underTheBound_aBinOpensOnceItsVerdictsBringTheBoundUnderTheBudget_andAWrongOneClosesIt() {
        BudgetedDecision bounded = new BudgetedDecision(learned, agreement, evidence, 0.01, 0.05, false);
        List<Neighbour> neighbours = agreeingOnTheResetAnswer();
        double prior = bounded.judge("route", QUERY, neighbours, 0).explore().get(0).prior();
        for (int i = 0; i < 450; i++) {
            evidence.record("route", "other" + (i % 50), 0.9f, prior, true);
        }
        assertThat(bounded.judge("route", QUERY, neighbours, 0).served()).as("450 right verdicts: not yet").isEmpty();
        for (int i = 0; i < 100; i++) {
            evidence.record("route", "other" + (i % 50), 0.9f, prior, true);
        }

        BudgetedDecision.Judgement opened = bounded.judge("route", QUERY, neighbours, 0);
        assertThat(opened.served()).isPresent();
        assertThat(opened.served().get().upperError()).isLessThanOrEqualTo(0.01);
        assertThat(bounded.judge("other-route", QUERY, neighbours, 0).served()).as("another scope").isEmpty();
        assertThat(bounded.judge(HitEvidence.scope("route", "t2"), QUERY, neighbours, 0).served())
                .as("another tenant of the route").isEmpty();

        evidence.record("route", "other1", 0.9f, prior, false);
        assertThat(bounded.judge("route", QUERY, neighbours, 0).served()).as("one wrong of 551").isEmpty();
    }

    @Test
    void underTheBound_anEntrysOwnWrongVerdict_stillVetoesIt() {
        BudgetedDecision bounded = new BudgetedDecision(learned, agreement, evidence, 0.01, 0.05, false);
        List<Neighbour> neighbours = agreeingOnTheResetAnswer();
        for (BudgetedDecision.Candidate c : bounded.judge("route", QUERY, neighbours, 0).explore()) {
            for (int i = 0; i < 700; i++) {
                evidence.record("route", "other" + (i % 50), 0.9f, c.prior(), true);
            }
        }
        String first = bounded.judge("route", QUERY, neighbours, 0).served().orElseThrow().neighbour().entryKey();

        evidence.record("route", first, 0.99f, 0.5, false);

        assertThat(bounded.judge("route", QUERY, neighbours, 0).served()).map(c -> c.neighbour().entryKey())
                .isPresent().get().isNotEqualTo(first);
    }

    @Test
    void nestedClasses_poolABinWithTheBinsAboveIt_soItOpensSooner() {
        BudgetedDecision perBin = new BudgetedDecision(learned, agreement, evidence, 0.01, 0.05, false);
        BudgetedDecision nested = new BudgetedDecision(learned, agreement, evidence, 0.01, 0.05, true);
        List<Neighbour> neighbours = agreeingOnTheResetAnswer();
        double prior = perBin.judge("route", QUERY, neighbours, 0).explore().get(0).prior();
        double above = 1 - (1 - prior) / 10; // a decade closer to 1: two bins and more above
        assertThat(ProbabilityBins.of(above)).isGreaterThan(ProbabilityBins.of(prior) + 1);
        for (int i = 0; i < 400; i++) {
            evidence.record("route", "x" + (i % 50), 0.9f, prior, true);
        }
        for (int i = 0; i < 600; i++) {
            evidence.record("route", "y" + (i % 50), 0.9f, above, true);
        }

        assertThat(perBin.judge("route", QUERY, neighbours, 0).served()).as("400 verdicts in its own bin").isEmpty();
        BudgetedDecision.Judgement judged = nested.judge("route", QUERY, neighbours, 0);
        assertThat(judged.served()).as("1,000 in its bin and above, at delta / 20").isPresent();
        assertThat(judged.served().get().upperError()).isLessThanOrEqualTo(0.01);

        for (int i = 0; i < 6; i++) {
            evidence.record("route", "z" + i, 0.9f, above, false);
        }
        assertThat(nested.judge("route", QUERY, neighbours, 0).served()).as("wrong verdicts above close it too")
                .isEmpty();
    }

    /** Four entries between 0.91 and 0.93, all holding the same answer (filed with extra white space once). */
    private List<Neighbour> agreeingOnTheResetAnswer() {
        List<Neighbour> neighbours = List.of(
                new Neighbour("a1", 0.93f, "I forgot my password, how do I set a new password?", 0, Long.MAX_VALUE),
                new Neighbour("a2", 0.925f, "Where do I change a forgotten password?", 0, Long.MAX_VALUE),
                new Neighbour("a3", 0.92f, "Reset password please", 0, Long.MAX_VALUE),
                new Neighbour("a4", 0.91f, "password reset", 0, Long.MAX_VALUE));
        for (Neighbour n : neighbours) {
            evidence.answers().file(n.entryKey(), n.entryKey().equals("a1") ? "Use the  'Forgot password' link."
                    : "Use the 'Forgot password' link.");
        }
        return neighbours;
    }

    @Test
    void theBudgetMustBeAShare() {
        assertThatThrownBy(() -> new BudgetedDecision(learned, agreement, evidence, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BudgetedDecision(learned, agreement, evidence, 0.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
