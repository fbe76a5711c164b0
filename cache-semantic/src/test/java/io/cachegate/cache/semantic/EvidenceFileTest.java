package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvidenceFileTest {

    private static final double BUDGET = 0.01;
    private static final ClassSpending SPENDING = new ClassSpending(BUDGET, 0.05, ClassSpending.Plan.BONFERRONI);
    private static final double PRIOR = 0.9985; // bin 11
    private static final String FINGERPRINT = EvidenceFile.fingerprint("model-a");

    @TempDir
    Path dir;

    /** A route whose class opened on 818 right verdicts, was closed by a wrong one and has 300 right since. */
    private static HitEvidence reearning() {
        HitEvidence evidence = new HitEvidence(2_000);
        for (int i = 0; i < 818; i++) {
            evidence.record("route", "e" + i, 0.95f, PRIOR, true);
        }
        assertThat(evidence.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT)).isLessThanOrEqualTo(BUDGET);
        evidence.record("route", "bad", 0.95f, PRIOR, false);
        for (int i = 0; i < 300; i++) {
            evidence.record("route", "f" + i, 0.95f, PRIOR, true);
        }
        return evidence;
    }

    @Test
    void restart_keepsTheCounts_andAClassTheWatchClosedStaysClosedUntilReearned() throws IOException {
        HitEvidence before = reearning();
        double closedBefore = before.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT);
        assertThat(closedBefore).isGreaterThan(BUDGET);
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, before);

        HitEvidence after = new HitEvidence(2_000);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.verdicts("route", PRIOR)).containsExactly(before.verdicts("route", PRIOR));
        assertThat(after.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.OFF))
                .as("the bound on all verdicts would reopen it")
                .isEqualTo(before.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.OFF)).isLessThanOrEqualTo(BUDGET);
        assertThat(after.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                .as("still re-earning after the restart").isEqualTo(closedBefore);
        for (int i = 0; i < 518; i++) {
            after.record("route", "g" + i, 0.95f, PRIOR, true);
        }
        assertThat(after.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                .as("818 right since the closing, 300 of them before the restart").isLessThanOrEqualTo(BUDGET);
    }

    @Test
    void theFleetPosition_isKept_soARestartResumesWhereItHadRead() throws IOException {
        HitEvidence before = new HitEvidence(100);
        before.record("route", "a", 0.95f, PRIOR, true);
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, before);
        HitEvidence unshared = new HitEvidence(100);
        assertThat(EvidenceFile.read(file, FINGERPRINT, unshared)).isTrue();
        assertThat(unshared.fleetPosition()).as("never shared").isNull();

        HitEvidence.FleetPosition position = new HitEvidence.FleetPosition("origin-1", "1733500000000-7",
                Map.of("origin-2", 1_765_000_000_000_123L, "origin-3", 1_765_100_000_000_009L));
        before.followFleet(() -> position);
        EvidenceFile.write(file, FINGERPRINT, before);
        HitEvidence after = new HitEvidence(100);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.fleetPosition()).as("where it had read, and the numbers it took there").isEqualTo(position);
        assertThat(after.verdicts("route", PRIOR)).containsExactly(before.verdicts("route", PRIOR));
    }

    @Test
    void aFileOfVersion2_withoutTheNumbersTaken_isStillRead() throws IOException {
        HitEvidence before = new HitEvidence(100);
        before.record("route", "a", 0.95f, PRIOR, true);
        before.fleetPosition(new HitEvidence.FleetPosition("origin-1", "1733500000000-7", Map.of()));
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, before);
        // Version 2 is version 3 without the count of numbers taken (the int before the end mark).
        byte[] v3 = Files.readAllBytes(file);
        ByteBuffer v2 = ByteBuffer.allocate(v3.length - Integer.BYTES);
        v2.put(v3, 0, 4).putInt(2).put(v3, 8, v3.length - 16).put(v3, v3.length - 4, 4);
        Files.write(file, v2.array());
        HitEvidence after = new HitEvidence(100);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.fleetPosition()).isEqualTo(
                new HitEvidence.FleetPosition("origin-1", "1733500000000-7", Map.of()));
        assertThat(after.verdicts("route", PRIOR)).containsExactly(before.verdicts("route", PRIOR));
    }

    @Test
    void restart_keepsDemotions_eachEntrysVerdicts_andTheAnswerGroups() throws IOException {
        HitEvidence before = new HitEvidence(100);
        for (int i = 0; i < 40; i++) { // more than an entry keeps: the newest 32 survive
            before.record("route", "a", 0.90f + i / 1000f, 0.95, i % 5 != 0);
        }
        before.demote("b");
        before.answers().file("a", "Paris is the capital.");
        before.answers().file("c", "Paris  is the capital.");
        before.answers().file("d", "Lyon.");
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, before);

        HitEvidence after = new HitEvidence(100);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.demoted("b")).isTrue();
        assertThat(after.demoted("a")).isFalse();
        for (float s : new float[] {0.85f, 0.91f, 0.93f, 0.99f}) {
            assertThat(after.entryEstimate("a", s, 0.9)).isEqualTo(before.entryEstimate("a", s, 0.9));
        }
        assertThat(after.answers().group("a")).isEqualTo(before.answers().group("a"))
                .isEqualTo(after.answers().group("c")).isNotEqualTo(after.answers().group("d"));
        assertThat(after.entries()).isEqualTo(before.entries());
    }

    @Test
    void anotherModelOrOtherPriors_nothingIsRead() throws IOException {
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, reearning());
        HitEvidence after = new HitEvidence(2_000);
        assertThat(EvidenceFile.read(file, EvidenceFile.fingerprint("model-b"), after)).isFalse();
        assertThat(after.verdicts("route", PRIOR)).containsExactly(0, 0);
        assertThat(EvidenceFile.read(dir.resolve("absent"), FINGERPRINT, after)).as("no file yet").isFalse();
        assertThat(EvidenceFile.fingerprint("model-a")).isEqualTo(FINGERPRINT).isNotEqualTo(EvidenceFile.fingerprint("model-b"));
    }

    @Test
    void aFileCutShort_orNotOurs_isRefusedWhole() throws IOException {
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, reearning());
        byte[] whole = Files.readAllBytes(file);
        for (int cut : new int[] {4, 100, whole.length / 2, whole.length - 1}) {
            Files.write(file, Arrays.copyOf(whole, cut));
            HitEvidence after = new HitEvidence(2_000);
            assertThatThrownBy(() -> EvidenceFile.read(file, FINGERPRINT, after)).isInstanceOf(IOException.class);
            assertThat(after.verdicts("route", PRIOR)).as("cut at %d", cut).containsExactly(0, 0);
            assertThat(after.entries()).isZero();
        }
        Files.writeString(file, "not an evidence file at all");
        assertThatThrownBy(() -> EvidenceFile.read(file, FINGERPRINT, new HitEvidence(10))).isInstanceOf(IOException.class);
    }

    @Test
    void eachWatchSettingsClosedClasses_areKeptApart() throws IOException {
        HitEvidence before = reearning();
        ClassSpending loose = new ClassSpending(0.05, 0.05, ClassSpending.Plan.BONFERRONI);
        assertThat(before.upperErrorNested("route", PRIOR, loose, ClassWatch.DEFAULT)).isLessThanOrEqualTo(0.05);
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, before);
        HitEvidence after = new HitEvidence(2_000);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.upperErrorNested("route", PRIOR, loose, ClassWatch.DEFAULT))
                .as("open at 5%: that budget's classes never closed").isLessThanOrEqualTo(0.05);
        assertThat(after.upperErrorNested("route", PRIOR, SPENDING, ClassWatch.DEFAULT))
                .as("still re-earning at 1%").isGreaterThan(BUDGET);
    }

    @Test
    void load_intoEvidenceThatHasVerdicts_isRefused() throws IOException {
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, reearning());
        HitEvidence busy = new HitEvidence(10);
        busy.record("route", "x", 0.9f, 0.9, true);
        assertThatThrownBy(() -> EvidenceFile.read(file, FINGERPRINT, busy)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void save_replacesTheFile_leavingNoTemporaryBehind() throws IOException {
        Path file = dir.resolve("evidence");
        EvidenceFile.write(file, FINGERPRINT, new HitEvidence(10));
        EvidenceFile.write(file, FINGERPRINT, reearning());
        HitEvidence after = new HitEvidence(2_000);
        assertThat(EvidenceFile.read(file, FINGERPRINT, after)).isTrue();
        assertThat(after.verdicts("route", PRIOR)[0]).isEqualTo(818 + 300);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }
}
