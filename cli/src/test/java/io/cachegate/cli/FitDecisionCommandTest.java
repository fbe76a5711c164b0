package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class FitDecisionCommandTest {

    @Test
    void call_withoutDataIsAUsageErrorBeforeTheModelLoads() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(new CommandLine(new FitDecisionCommand()).execute("--out", "p.properties")).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("--pairs FILE", "--intents FILE");
    }
}
