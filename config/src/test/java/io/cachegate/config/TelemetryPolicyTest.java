package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code telemetry}, {@code log} and {@code prices}: defaults, values, and the problems a user can make. */
class TelemetryPolicyTest {

    @Test
    void absent_noTraces_accessLogOnStdout_noPrices() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND);
        assertThat(policy.telemetry()).isEqualTo(TelemetrySettings.defaults());
        assertThat(policy.telemetry().tracing()).isFalse();
        assertThat(policy.log().access()).isEqualTo(LogSink.STDOUT);
        assertThat(policy.log().includeText()).isFalse();
        assertThat(policy.log().sampleRate()).isZero();
        assertThat(policy.prices()).isEmpty();
    }

    @Test
    void telemetry_readsEveryKey() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                telemetry:
                  service_name: edge-gw
                  sampling: 0.25
                  otlp: {endpoint: "http://collector:4317", protocol: grpc, timeout: 3s, export_delay: 250ms,
                        max_queued_spans: 64}
                """);
        assertThat(policy.telemetry()).isEqualTo(new TelemetrySettings("edge-gw", 0.25,
                Optional.of("http://collector:4317"), OtlpProtocol.GRPC, Duration.ofSeconds(3), Duration.ofMillis(250),
                64));
        assertThat(policy.telemetry().tracing()).isTrue();
    }

    @Test
    void telemetry_badEndpointOrSampling_areProblems() {
        assertThat(problem(BACKEND + "telemetry:\n  otlp: {endpoint: \"collector:4318\"}\n"))
                .contains("telemetry.otlp.endpoint", "not an http:// or https:// URL");
        assertThat(problem(BACKEND + "telemetry:\n  sampling: 1.5\n"))
                .contains("telemetry.sampling", "outside [0, 1]");
        assertThat(problem(BACKEND + "telemetry:\n  otlp: {protocol: grcp}\n"))
                .contains("telemetry.otlp.protocol", "did you mean");
        assertThat(problem(BACKEND + "telemetry:\n  otlp: {export_delay: 0s}\n"))
                .contains("telemetry.otlp.export_delay");
    }

    @Test
    void log_readsEveryKey() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                log:
                  access: file
                  file: /var/log/cg/access.log
                  max_file_size: 1MiB
                  max_files: 3
                  queue_lines: 100
                  include_text: true
                  sample_requests: {rate: 0.5, file: /var/log/cg/requests.jsonl}
                """);
        assertThat(policy.log()).isEqualTo(new LogSettings(LogSink.FILE, Optional.of("/var/log/cg/access.log"),
                1L << 20, 3, 100, true, 0.5, Optional.of("/var/log/cg/requests.jsonl")));
    }

    @Test
    void log_fileWithoutPath_andSamplingWithoutFile_areProblems() {
        assertThat(problem(BACKEND + "log:\n  access: file\n"))
                .contains("log.access", "needs log.file");
        assertThat(problem(BACKEND + "log:\n  sample_requests: {rate: 0.1}\n"))
                .contains("log.sample_requests.rate", "needs sample_requests.file");
    }

    @Test
    void prices_inFileOrder_negativeIsAProblem() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                prices:
                  "gpt-4o-mini": {input: 0.15, output: 0.6}
                  "gpt-4o*": {input: 2.5, output: 10}
                """);
        assertThat(policy.prices()).containsExactly(new ModelPrice("gpt-4o-mini", 0.15, 0.6),
                new ModelPrice("gpt-4o*", 2.5, 10));
        assertThat(policy.prices().get(1).cost(1_000_000, 500_000)).isEqualTo(7.5);
        assertThat(problem(BACKEND + "prices:\n  m: {input: -1}\n")).contains("prices.m.input", "is negative");
        assertThat(problem(BACKEND + "prices:\n  m: {inptu: 1}\n")).contains("prices.m", "inptu");
    }
}
