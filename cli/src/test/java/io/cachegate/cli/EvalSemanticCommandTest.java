package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EvalSemanticCommandTest {

    @Test
    void call_withoutDataIsAUsageErrorBeforeTheModelLoads() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(CachegateCli.commandLine().execute("eval-semantic")).isEqualTo(2);
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--warm", "w.tsv")).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("--pairs FILE", "--queries FILE");
    }

    @Test
    void call_badModelOrSecondSignal_isAUsageErrorBeforeAnyModelLoads() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--pairs", "p.tsv", "--model", "m.onnx"))
                    .isEqualTo(2);
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--pairs", "p.tsv", "--second-signal",
                    "cross-encoder")).isEqualTo(2);
            assertThat(CachegateCli.commandLine().execute("fit-decision", "--pairs", "p.tsv", "--out", "o", "--model",
                    "m.onnx")).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("eval-semantic: a model file (m.onnx) needs its"
                + " tokenizer.json", "--second-signal knows only e5", "fit-decision: a model file (m.onnx)");
    }

    @Test
    void dot_isTheCosineOfUnitVectors() {
        assertThat(EvalSemanticCommand.dot(new float[] {0.6f, 0.8f}, new float[] {0.6f, 0.8f})).isCloseTo(1f, within(1e-6f));
        assertThat(EvalSemanticCommand.dot(new float[] {1f, 0f}, new float[] {0f, 1f})).isZero();
    }

    @Test
    void replay_unknownStreamOrMissingData_isAUsageErrorBeforeTheModelLoads() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--replay", "imdb")).isEqualTo(2);
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--replay", "banking77:shuffled")).isEqualTo(2);
            assertThat(CachegateCli.commandLine().execute("eval-semantic", "--replay", "sick", "--data",
                    "no/such/dir")).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("unknown stream 'imdb'")
                .contains("unknown answer structure 'shuffled'").contains("no/such/dir");
    }
}
