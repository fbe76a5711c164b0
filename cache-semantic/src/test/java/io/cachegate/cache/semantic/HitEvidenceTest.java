package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class HitEvidenceTest {

    private final HitEvidence evidence = new HitEvidence(3, new HitEvidence.Strength(20, 2));

    @Test
    void withoutVerdicts_theEstimateIsThePrior() {
        assertThat(evidence.estimate("route", "e1", 0.95f, 0.97)).isEqualTo(0.97);
    }

    @Test
    void rightVerdictsAtOrBelowASimilarity_raiseTheEstimateThere_butNotBelowThem() {
        evidence.record("route", "e1", 0.93f, 0.97, true);
        evidence.record("route", "e1", 0.94f, 0.97, true);

        double above = evidence.estimate("other", "e1", 0.95f, 0.97);
        double below = evidence.estimate("other", "e1", 0.92f, 0.97);

        assertThat(above).isCloseTo((2 * 0.97 + 2) / 4, within(1e-9));
        assertThat(below).as("a right verdict says nothing of less similar queries").isEqualTo(0.97);
    }

    @Test
    void aWrongVerdictAtOrAboveASimilarity_lowersTheEstimateThere_butNotAboveIt() {
        evidence.record("route", "e1", 0.96f, 0.97, false);

        assertThat(evidence.estimate("other", "e1", 0.95f, 0.97)).isCloseTo(2 * 0.97 / 3, within(1e-9));
        assertThat(evidence.estimate("other", "e1", 0.97f, 0.97)).isEqualTo(0.97);
    }

    @Test
    void aPoolCalibratesThePrior_forEntriesWithoutVerdictsOfTheirOwn() {
        for (int i = 0; i < 20; i++) {
            evidence.record("route", "seen" + i, 0.95f, 0.97, i % 2 == 0); // half wrong at a prior of 0.97
        }

        double pooled = evidence.estimate("route", "fresh", 0.95f, 0.97);

        assertThat(pooled).isCloseTo((20 * 0.97 + 10) / 40, within(1e-9));
        assertThat(evidence.estimate("route", "fresh", 0.95f, 0.9999)).as("another bin of the prior").isEqualTo(0.9999);
        assertThat(evidence.estimate("elsewhere", "fresh", 0.95f, 0.97)).as("another pool").isEqualTo(0.97);
    }

    @Test
    void aPairVerdict_countsForBothEntries_andOnceInThePool() {
        evidence.recordPair("route", "old", "new", 0.95f, 0.97, true);

        assertThat(evidence.estimate("other", "old", 0.96f, 0.97)).isGreaterThan(0.97);
        assertThat(evidence.estimate("other", "new", 0.96f, 0.97)).isGreaterThan(0.97);
        assertThat(evidence.estimate("route", "unseen", 0.96f, 0.97)).isCloseTo((20 * 0.97 + 1) / 21, within(1e-9));
    }

    @Test
    void demotion_isRemembered_andEntriesAreBounded() {
        evidence.demote("e1");
        assertThat(evidence.demoted("e1")).isTrue();
        assertThat(evidence.demoted("e2")).isFalse();

        for (int i = 0; i < 10; i++) {
            evidence.record("route", "x" + i, 0.95f, 0.97, true);
        }

        assertThat(evidence.entries()).isEqualTo(3);
        assertThat(evidence.demoted("e1")).as("the least recently judged went first").isFalse();
    }

    @Test
    void onlyTheNewestVerdictsOfAnEntryCount() {
        for (int i = 0; i < HitEvidence.PER_ENTRY; i++) {
            evidence.record("route", "e1", 0.95f, 0.97, false);
        }
        for (int i = 0; i < HitEvidence.PER_ENTRY; i++) {
            evidence.record("route", "e1", 0.95f, 0.97, true);
        }

        assertThat(evidence.estimate("other", "e1", 0.95f, 0.97))
                .isCloseTo((2 * 0.97 + HitEvidence.PER_ENTRY) / (2 + HitEvidence.PER_ENTRY), within(1e-9));
    }

    @Test
    void aRoutesScope_holdsItsIdentity_yetIsCountedUnderItsLabel() {
        String llama = HitEvidence.scope("0", "1a2b3c4d", "acme");
        String movedIn = HitEvidence.scope("0", "9f8e7d6c", "acme");
        evidence.record(llama, "e1", 0.95f, 0.999, true);

        assertThat(llama).isNotEqualTo(movedIn).isNotEqualTo(HitEvidence.scope("0", "acme"));
        assertThat(evidence.verdicts(movedIn, 0.999)).as("another route at the same place: none of its verdicts")
                .containsExactly(0, 0);
        assertThat(HitEvidence.routeOf(llama)).isEqualTo("0");
        assertThat(HitEvidence.routeOf(HitEvidence.scope("0", "acme"))).isEqualTo("0");
        assertThat(HitEvidence.routeOf(HitEvidence.scope("2", "1a2b3c4d", ""))).isEqualTo("2");
    }

}
