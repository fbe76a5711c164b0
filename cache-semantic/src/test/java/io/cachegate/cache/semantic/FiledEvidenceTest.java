package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The evidence a gateway shares with its fleet: its one-line form read back as written, anything else refused, and
 * evidence applied from another gateway counted as this gateway's own without being shared again.
 */
class FiledEvidenceTest {

    private static final double BUDGET = 0.01;
    private static final ClassSpending SPENDING = new ClassSpending(BUDGET, 0.05, ClassSpending.Plan.BONFERRONI);
    private static final double PRIOR = 0.9985;

    @Test
    void aLine_readsBackAsWritten_whateverTheKeysHold() {
        String pool = HitEvidence.scope("route\twith tab", "tenant\u00e9%\n");
        List<FiledEvidence> filed = List.of(
                new FiledEvidence.Verdict(pool, "cg:v1:{t}:m:abc", null, 0.9731f, 0.99875, true),
                new FiledEvidence.Verdict(pool, "cg:v1:{t}:m:abc", "cg:v1:{t}:m:def", -0.5f, 0, false),
                new FiledEvidence.Demotion("cg:v1:{t}:m:\t+ %20"),
                new FiledEvidence.Answer("cg:v1:{t}:m:abc", -4_611_686_018_427_387_904L));
        for (FiledEvidence e : filed) {
            assertThat(e.encode()).doesNotContain("\n");
            assertThat(FiledEvidence.decode(e.encode())).contains(e);
        }
    }

    @Test
    void aLineThatIsNotEvidence_isRefused_neverThrown() {
        String good = new FiledEvidence.Verdict("p", "e", null, 0.9f, 0.5, true).encode();
        for (String bad : new String[] {"", "v", "d", "d\t", "x\te", good + "\textra", good.replace("\t1", "\t2"),
                "v\tp\te\t\t0.9\t1.5\t1", "v\tp\te\t\t0.9\tNaN\t1", "v\tp\te\t\t7\t0.5\t1", "v\tp\te\t\tfast\t0.5\t1",
                "v\t\te\t\t0.9\t0.5\t1", "d\t%zz", "a\te", "a\te\t0", "a\te\tx", "a\t\t5", "v\tp\te\t\t0.9\t0.5\t1".repeat(300)}) {
            assertThat(FiledEvidence.decode(bad)).as(bad).isEmpty();
        }
        assertThat(FiledEvidence.decode(null)).isEmpty();
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) { // a mangled good line: refused or read, never an exception
            char[] c = good.toCharArray();
            c[random.nextInt(c.length)] = (char) random.nextInt(128);
            Optional<FiledEvidence> read = FiledEvidence.decode(new String(c));
            read.ifPresent(e -> assertThat(FiledEvidence.decode(e.encode())).contains(e));
        }
    }

    @Test
    void evidenceFiledHere_isToldOnce_andEvidenceAppliedFromElsewhere_isNot() {
        HitEvidence here = new HitEvidence(100);
        List<FiledEvidence> told = new ArrayList<>();
        here.onFiled(told::add);
        here.record("route", "a", 0.95f, PRIOR, true);
        here.recordPair("route", "b", "c", 0.93f, PRIOR, false);
        here.demote("b");
        here.demote("b"); // already demoted: nothing new to tell
        here.fileAnswer("a", "Paris is the capital.");
        here.fileAnswer("d", "  "); // no text: no group, nothing to tell
        assertThat(told).hasSize(4).startsWith(
                new FiledEvidence.Verdict("route", "a", null, 0.95f, PRIOR, true),
                new FiledEvidence.Verdict("route", "b", "c", 0.93f, PRIOR, false),
                new FiledEvidence.Demotion("b"));
        assertThat(told.get(3)).isEqualTo(new FiledEvidence.Answer("a", here.answers().group("a")));

        HitEvidence there = new HitEvidence(100);
        List<FiledEvidence> toldThere = new ArrayList<>();
        there.onFiled(toldThere::add);
        told.forEach(there::apply);
        assertThat(toldThere).as("applied evidence goes back to no one").isEmpty();
        assertThat(there.verdicts("route", PRIOR)).containsExactly(here.verdicts("route", PRIOR));
        assertThat(there.demoted("b")).isTrue();
        assertThat(there.answers().group("a")).isEqualTo(here.answers().group("a")).isNotEqualTo(AnswerGroups.UNKNOWN);
        for (String entry : new String[] {"a", "b", "c"}) {
            for (float s : new float[] {0.9f, 0.94f, 0.99f}) {
                assertThat(there.entryEstimate(entry, s, 0.9)).isEqualTo(here.entryEstimate(entry, s, 0.9));
            }
        }
    }

    @Test
    void aClassOpens_onTheVerdictsOfSeveralGateways_asOnOnesAlone() {
        HitEvidence[] gateways = {new HitEvidence(2_000), new HitEvidence(2_000), new HitEvidence(2_000)};
        for (HitEvidence g : gateways) { // each tells the others, as the shared stream does
            g.onFiled(e -> {
                for (HitEvidence other : gateways) {
                    if (other != g) {
                        other.apply(e);
                    }
                }
            });
        }
        for (int i = 0; i < 818; i++) { // a third of the verdicts each, as behind a load balancer
            gateways[i % 3].record("route", "e" + i, 0.95f, PRIOR, true);
        }
        HitEvidence alone = new HitEvidence(2_000);
        for (int i = 0; i < 818; i++) {
            alone.record("route", "e" + i, 0.95f, PRIOR, true);
        }
        for (HitEvidence g : gateways) {
            assertThat(g.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                    .isEqualTo(alone.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                    .isLessThanOrEqualTo(BUDGET);
        }
        HitEvidence unshared = new HitEvidence(2_000);
        for (int i = 0; i < 818; i += 3) {
            unshared.record("route", "e" + i, 0.95f, PRIOR, true);
        }
        assertThat(unshared.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                .as("a third of them: still closed").isGreaterThan(BUDGET);
    }
}
