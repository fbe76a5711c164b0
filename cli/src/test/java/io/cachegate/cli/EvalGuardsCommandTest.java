package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalGuardsCommandTest {

    @TempDir
    Path dir;

    @Test
    void call_countsVetoedPositivesAndNegatives_andPrintsTheChosenGuardsExamples() throws IOException {
        Path pairs = dir.resolve("pairs.tsv");
        Files.writeString(pairs, String.join("\n", "text_a\ttext_b\tlabel",
                "Where is room 101M?\tWhere is room 101m?\t1",
                "Is bay 3V free?\tIs bay 3 V free?\t1",
                "Is a 9V battery safe?\tIs a 9 watt battery safe?\t1",
                "Where is room 101M?\tWhere is room 101K?\t0",
                "Is 5km far?\tIs 5 km far?\t0", ""), StandardCharsets.UTF_8);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = run(captured, "eval-guards", "--pairs", pairs.toString(), "--examples", "5");
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).isZero();
        // One positive of three (9V against 9 watt) and one negative of two (101M against 101K).
        assertThat(out).contains("pairs.tsv", "identifiers 1 33.33% / 1 50.00%", "vetoes 1 33.33% / 1 50.00%")
                .contains("identifiers vetoes: Is a 9V battery safe?  |  Is a 9 watt battery safe?")
                .doesNotContain("101K?  |");
    }

    @Test
    void call_unknownGuard_isAUsageError() {
        assertThat(run(new ByteArrayOutputStream(), "eval-guards", "--pairs", "p.tsv", "--guard", "colour"))
                .isEqualTo(2);
    }

    private static int run(ByteArrayOutputStream captured, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream to = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(to);
        System.setErr(to);
        try {
            return CachegateCli.commandLine().execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
