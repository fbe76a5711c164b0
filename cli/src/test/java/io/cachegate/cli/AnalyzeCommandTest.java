package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cli.CliTest.Run;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeCommandTest {

    @TempDir
    Path dir;

    @Test
    void analyze_json_documentHasEveryField() throws Exception {
        Path file = Files.write(dir.resolve("log.jsonl"), List.of(
                "{\"model\":\"m\",\"prompt\":\"Say hi\",\"temperature\":0,\"max_tokens\":5}",
                "{\"tenant\":\"acme\",\"body\":{\"model\":\"m\",\"prompt\":\"Say hi\",\"temperature\":0,\"max_tokens\":5}}",
                "{\"model\":\"m\",\"prompt\":\"Say hi\",\"temperature\":0,\"max_tokens\":5,\"stream\":true}",
                "oops"));

        Run run = CliTest.run("analyze", file.toString(), "--json", "--no-semantic", "--price-in", "2",
                "--price-out", "8");

        assertThat(run.exit()).isZero();
        JsonNode doc = new ObjectMapper().readTree(run.out());
        assertThat(doc.fieldNames()).toIterable().containsExactly("file", "lines", "blank_lines", "requests",
                "malformed", "seconds", "requests_per_second", "settings", "bounds", "overall", "groups");
        assertThat(doc.path("malformed").path("first").get(0).path("line").asInt()).isEqualTo(4);
        JsonNode all = doc.path("overall");
        assertThat(all.fieldNames()).toIterable().containsExactly("tenant", "model", "requests",
                "deterministic_share", "sensitive_share", "exact_repeat_share", "whitespace_repeat_share", "case_repeat_share", "prefix",
                "semantic", "projected");
        assertThat(all.path("exact_repeat_share").asDouble()).isEqualTo(0.3333);
        JsonNode exact = all.path("projected").path("exact");
        assertThat(exact.path("hits").asInt()).isEqualTo(1);
        assertThat(exact.path("tokens_out_saved").asInt()).isEqualTo(5);
        // "Say hi": 2 words -> ceil(2 * 4 / 3) = 3 tokens at $2/M, 5 output tokens at $8/M.
        assertThat(exact.path("cost_saved").asDouble()).isEqualTo(Math.round((3 * 2 + 5 * 8) / 1e6 * 1e4) / 1e4);
        assertThat(all.path("projected").path("semantic").isNull()).isTrue();
        assertThat(doc.path("groups")).hasSize(2);
    }

    @Test
    void analyze_text_printsTheTables() throws Exception {
        Path file = Files.write(dir.resolve("log.jsonl"), List.of("{\"model\":\"m\",\"prompt\":\"x\",\"seed\":1}"));

        Run run = CliTest.run("analyze", file.toString(), "--no-semantic");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("1 requests, 0 malformed", "share of requests", "projected savings",
                "embedder: off");
    }

    @Test
    void analyze_missingFileOrBadThreshold_isAUsageError() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(CliTest.run("analyze", dir.resolve("none.jsonl").toString(), "--no-semantic").exit())
                    .isEqualTo(2);
            assertThat(CliTest.run("analyze", "x", "--thresholds", "0.8,1.5").exit()).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("no such file", "(0, 1]");
    }

    /**
     * 200,000 lines in a child JVM with a 48 MiB heap: the key sets hold digests, the reader one chunk, so the heap
     * does not grow with the file (150,000 distinct prompts: a set of strings would not fit).
     */
    @Test
    void analyze_200kLines_inASmallHeap() throws Exception {
        Path file = dir.resolve("big.jsonl");
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            for (int i = 0; i < 200_000; i++) {
                out.write("{\"model\":\"m\",\"prompt\":\"question " + (i % 150_000) + "\",\"temperature\":0}\n");
            }
        }
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Serial GC: G1 at 48 MB once failed to place a growing digest table (a humongous array) in CI.
                "-Xmx48m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                CachegateCli.class.getName(),
                "analyze", file.toString(), "--no-semantic", "--json")
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.json").toFile()).start();
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(dir.resolve("out.json"));
        assertThat(child.exitValue()).as(out).isZero();
        JsonNode all = new ObjectMapper().readTree(out).path("overall");
        assertThat(all.path("requests").asLong()).isEqualTo(200_000);
        assertThat(all.path("exact_repeat_share").asDouble()).isEqualTo(0.25);
    }
}
