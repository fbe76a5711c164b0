package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {

    @TempDir
    Path dir;

    @Test
    void help_listsEverySubCommand() {
        Run run = run("--help");
        assertThat(run.exit).isZero();
        assertThat(run.out).contains("serve", "demo", "simulate-backend", "bench", "validate");
    }

    @Test
    void benchHelp_listsOverheadScenario() {
        Run run = run("bench", "--help");
        assertThat(run.exit).isZero();
        assertThat(run.out).contains("overhead");
    }

    @Test
    void validate_goodFile_printsOk() throws Exception {
        Path file = dir.resolve("good.yaml");
        Files.writeString(file, """
                backends:
                  - name: main
                    urls: [http://127.0.0.1:8000]
                """);
        Run run = run("validate", file.toString());
        assertThat(run.exit).isZero();
        assertThat(run.out.strip()).isEqualTo("ok");
    }

    @Test
    void validate_badFile_printsEveryProblemWithLineAndPath() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, """
                server:
                  port: 99999
                backends:
                  - name: main
                    urls: [http://127.0.0.1:8000]
                routes:
                  - match: { model: "*" }
                    backend: main
                    cache: { ttl: "ten minutes" }
                """);
        Run run = run("validate", file.toString());
        assertThat(run.exit).isEqualTo(1);
        assertThat(run.out).contains("bad.yaml:2: server.port:")
                .contains("bad.yaml:9: routes[0].cache.ttl: \"ten minutes\" is not a duration");
    }

    @Test
    void validate_missingFile_isAClearMessage() {
        Run run = run("validate", dir.resolve("nope.yaml").toString());
        assertThat(run.exit).isEqualTo(1);
        assertThat(run.out).contains("nope.yaml").doesNotContain("Exception");
    }

    @Test
    void simulateBackend_badModelCard_isAUsageErrorBeforeAnythingStarts() {
        assertThat(run("simulate-backend", "--port", "0", "--model-card", "llama-3.1-8b").exit)
                .as("no ID=").isEqualTo(2);
        assertThat(run("simulate-backend", "--port", "0", "--model-card", "gpt-5=@r1").exit)
                .as("not a served model").isEqualTo(2);
    }

    @Test
    void simulateBackend_badKvEventsOptions_areUsageErrorsBeforeAnythingStarts() {
        assertThat(run("simulate-backend", "--port", "0", "--kv-events", "--kv-block-size", "0").exit)
                .as("block size 0").isEqualTo(2);
        assertThat(run("simulate-backend", "--port", "0", "--kv-events", "--kv-replay-buffer", "-1").exit)
                .as("negative replay buffer").isEqualTo(2);
        assertThat(run("simulate-backend", "--port", "0", "--kv-events", "--kv-tokenizer",
                dir.resolve("missing-tokenizer.json").toString()).exit).as("no tokenizer file").isEqualTo(2);
    }

    record Run(int exit, String out) {
    }

    /** Runs the command tree in-process, capturing what it prints on standard output. */
    static Run run(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int exit = CachegateCli.commandLine().execute(args);
            return new Run(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }
}
