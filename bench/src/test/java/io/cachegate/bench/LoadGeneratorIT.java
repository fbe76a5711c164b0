package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator against a real simulator on an ephemeral port. No latency upper bounds: timing is the host's. */
class LoadGeneratorIT {

    private static final SimulatorOptions FAST = SimulatorOptions.defaults().withTtftMs(0).withTpotMs(0);

    @TempDir
    Path dir;

    private static BenchOptions.Builder options(URI target, RequestSource source) {
        return BenchOptions.builder(target, source)
                .warmup(Duration.ZERO)
                .duration(Duration.ofMillis(500))
                .requestTimeout(Duration.ofSeconds(5));
    }

    private static RequestSource chat(double streamFraction) {
        return RequestSources.generated(GeneratorSpec.defaults().withDistinctPrompts(20)
                .withStreamFraction(streamFraction).withMaxTokens(8));
    }

    @Test
    void run_closedLoop_completesRequestsWithoutErrorsAndSimulatorAgrees() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST)) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).closedLoop(4).build());

            assertThat(report.requests()).isPositive();
            assertThat(report.errors()).isZero();
            assertThat(report.errorsByKind()).isEmpty();
            assertThat(report.statusCounts()).containsOnlyKeys(200).containsEntry(200, report.requests());
            assertThat(sim.stats().requests()).isEqualTo(report.requests());
            assertThat(report.total().count()).isEqualTo(report.requests());
            assertThat(report.total().p50Ms()).isPositive();
            assertThat(report.firstByte().p50Ms()).isLessThanOrEqualTo(report.total().p50Ms());
            assertThat(report.durationSeconds()).isGreaterThanOrEqualTo(0.5);
            assertThat(report.throughput()).isPositive();
            assertThat(report.sendLag().count()).isZero();
        }
    }

    @Test
    void run_overSeveralTargets_spreadsTheConnectionsOverEach() throws Exception {
        try (BackendSimulator a = BackendSimulator.start(FAST); BackendSimulator b = BackendSimulator.start(FAST)) {
            BenchReport report = LoadGenerator.run(options(a.baseUrl(), chat(0)).alsoTargets(List.of(b.baseUrl()))
                    .closedLoop(4).build());

            assertThat(report.errors()).isZero();
            assertThat(a.stats().requests()).isPositive();
            assertThat(b.stats().requests()).isPositive();
            assertThat(a.stats().requests() + b.stats().requests()).isEqualTo(report.requests());
        }
    }

    @Test
    void run_closedLoopWithWarmup_recordsOnlyAfterWarmup() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST)) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).closedLoop(2)
                    .warmup(Duration.ofMillis(300)).build());

            assertThat(report.requests()).isPositive();
            assertThat(sim.stats().requests()).isGreaterThan(report.requests());
        }
    }

    @Test
    void run_openLoop_sendsAboutRateTimesDuration() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST)) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).openLoop(200, 8)
                    .duration(Duration.ofSeconds(1)).build());

            // The schedule fixes the count (200 due in [0 s, 1 s)); only a starved host could lose some.
            assertThat(report.requests()).isBetween(190L, 201L);
            assertThat(report.errors()).isZero();
            assertThat(sim.stats().requests()).isEqualTo(report.requests());
            assertThat(report.throughput()).isPositive().isLessThanOrEqualTo(201.0);
            assertThat(report.sendLag().count()).isEqualTo(report.requests());
        }
    }

    @Test
    void run_streaming_recordsFirstByteAndTotal() throws Exception {
        SimulatorOptions slowTokens = SimulatorOptions.defaults().withTtftMs(0).withTpotMs(5);
        try (BackendSimulator sim = BackendSimulator.start(slowTokens)) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(1.0)).closedLoop(2).build());

            assertThat(report.errors()).isZero();
            assertThat(report.firstByte().count()).isEqualTo(report.requests()).isPositive();
            assertThat(report.total().count()).isEqualTo(report.requests());
            // Eight tokens at 5 ms each after the first: the end of the stream comes well after its start.
            assertThat(report.total().p50Ms()).isGreaterThanOrEqualTo(30.0);
            assertThat(report.total().p50Ms() - report.firstByte().p50Ms()).isGreaterThanOrEqualTo(25.0);
        }
    }

    @Test
    void run_trace_replaysItsRequests() throws Exception {
        Path trace = dir.resolve("trace.jsonl");
        Files.writeString(trace, """
                {"path": "/v1/chat/completions", "body": {"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}}
                {"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "yo"}], "max_tokens": 4, "stream": true}
                {"path": "/v1/embeddings", "body": {"model": "llama-3.1-8b", "input": "embed me"}}
                """);
        try (BackendSimulator sim = BackendSimulator.start(FAST)) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), RequestSources.fromTrace(trace))
                    .closedLoop(1).build());

            assertThat(report.requests()).isGreaterThanOrEqualTo(3);
            assertThat(report.errors()).isZero();
            assertThat(sim.stats().requests()).isEqualTo(report.requests());
        }
    }

    @Test
    void run_closedPort_countsConnectErrors() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        URI closed = URI.create("http://127.0.0.1:" + port);

        BenchReport closedLoop = LoadGenerator.run(options(closed, chat(0)).closedLoop(2)
                .duration(Duration.ofMillis(300)).build());
        BenchReport openLoop = LoadGenerator.run(options(closed, chat(0)).openLoop(100, 2)
                .duration(Duration.ofMillis(300)).build());

        for (BenchReport report : new BenchReport[] {closedLoop, openLoop}) {
            assertThat(report.errorsByKind()).containsOnlyKeys("connect");
            assertThat(report.errors()).isEqualTo(report.requests()).isPositive();
            assertThat(report.statusCounts()).isEmpty();
            assertThat(report.total().count()).isZero();
            assertThat(report.throughput()).isZero();
        }
        assertThat(openLoop.requests()).isEqualTo(30);
    }

    @Test
    void run_serverErrors_countedByStatus() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST.withErrorRate(1.0))) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0.5)).closedLoop(2).build());

            assertThat(report.requests()).isPositive();
            assertThat(report.errors()).isEqualTo(report.requests());
            assertThat(report.errorsByKind()).containsOnly(Map.entry("http_500", report.requests()));
            assertThat(report.statusCounts()).containsOnly(Map.entry(500, report.requests()));
            assertThat(report.total().count()).isZero();
        }
    }

    @Test
    void run_hangingServer_countsTimeouts() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST.withHangRate(1.0))) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).closedLoop(2)
                    .duration(Duration.ofMillis(300)).requestTimeout(Duration.ofMillis(100)).build());

            assertThat(report.errorsByKind()).containsOnlyKeys("timeout");
            assertThat(report.errors()).isEqualTo(report.requests()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void run_openLoopSlowServer_countsQueueingFromIntendedTime() throws Exception {
        // One connection, 100 ms per answer, a request due every 50 ms: each waits for the ones
        // before it. Measured from the actual send every latency would be ~100 ms; from the
        // intended time the last of ten has waited about half a second more.
        try (BackendSimulator sim = BackendSimulator.start(FAST.withTtftMs(100))) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).openLoop(20, 1)
                    .duration(Duration.ofMillis(500)).build());

            assertThat(report.requests()).isEqualTo(10);
            assertThat(report.errors()).isZero();
            assertThat(report.total().maxMs()).isGreaterThanOrEqualTo(450.0);
            assertThat(report.total().p50Ms()).isGreaterThanOrEqualTo(200.0);
            assertThat(report.durationSeconds()).isGreaterThanOrEqualTo(0.95);
            // The wait for the one connection shows as send lag too.
            assertThat(report.sendLag().maxMs()).isGreaterThanOrEqualTo(300.0);
        }
    }

    @Test
    void run_openLoopBacklogFull_countsGeneratorBacklog() throws Exception {
        try (BackendSimulator sim = BackendSimulator.start(FAST.withTtftMs(200))) {
            BenchReport report = LoadGenerator.run(options(sim.baseUrl(), chat(0)).openLoop(100, 1)
                    .maxBacklog(2).duration(Duration.ofMillis(300)).build());

            assertThat(report.requests()).isEqualTo(30);
            assertThat(report.errorsByKind()).containsKey("generator_backlog");
            assertThat(report.errorsByKind().get("generator_backlog")).isGreaterThanOrEqualTo(20);
            assertThat(report.statusCounts().getOrDefault(200, 0L)).isBetween(1L, 4L);
        }
    }

    @Test
    void run_progress_printsALinePerSecond() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (BackendSimulator sim = BackendSimulator.start(FAST);
             PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            LoadGenerator.run(options(sim.baseUrl(), chat(0)).openLoop(50, 2).duration(Duration.ofMillis(1_200))
                    .progress(true).build(), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);

        assertThat(printed).contains("sent ", "done ", "errors 0", "rate ", "p99 ", "bench done:");
    }

    @Test
    void run_failingSource_throws() {
        try (BackendSimulator sim = BackendSimulator.start(FAST)) {
            RequestSource broken = () -> {
                throw new IllegalStateException("boom");
            };

            assertThatThrownBy(() -> LoadGenerator.run(options(sim.baseUrl(), broken).closedLoop(1).build()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("boom");
        }
    }

    @Test
    void run_unresolvableHost_isRejected() {
        BenchOptions options = options(URI.create("http://no-such-host.invalid:1"), chat(0)).build();

        assertThatThrownBy(() -> LoadGenerator.run(options)).isInstanceOf(IllegalArgumentException.class);
    }
}
