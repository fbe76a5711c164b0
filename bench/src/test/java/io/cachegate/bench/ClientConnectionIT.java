package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How answers that are cut short, malformed or not kept alive are counted, against a scripted server. */
class ClientConnectionIT {

    private static BenchReport run(URI target, boolean streaming) throws InterruptedException {
        BenchRequest request = BenchRequest.post("/v1/chat/completions",
                "{\"model\":\"m\",\"stream\":true}".getBytes(StandardCharsets.UTF_8), streaming);
        return LoadGenerator.run(BenchOptions.builder(target, RequestSources.constant(request))
                .closedLoop(1).warmup(Duration.ZERO).duration(Duration.ofMillis(300))
                .requestTimeout(Duration.ofSeconds(2)).build());
    }

    @Test
    void run_bodyCutShort_countsPrematureClose() throws Exception {
        try (ScriptedHttpServer server = new ScriptedHttpServer(
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part", true)) {
            BenchReport report = run(server.baseUrl(), false);

            assertThat(report.errorsByKind()).containsOnlyKeys("premature_close");
            assertThat(report.errors()).isEqualTo(report.requests()).isPositive();
            assertThat(report.statusCounts()).isEmpty();
        }
    }

    @Test
    void run_streamWithoutDone_countsIncompleteStream() throws Exception {
        String events = "data: {\"choices\":[]}\n\n";
        try (ScriptedHttpServer server = new ScriptedHttpServer("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + "Content-Length: " + events.length() + "\r\n\r\n" + events, false)) {
            BenchReport report = run(server.baseUrl(), true);

            assertThat(report.errorsByKind()).containsOnlyKeys("incomplete_stream");
            assertThat(report.errors()).isEqualTo(report.requests()).isPositive();
            assertThat(report.statusCounts()).containsOnlyKeys(200);
        }
    }

    @Test
    void run_chunkedStreamWithDone_succeeds() throws Exception {
        String first = "data: {\"choices\":[]}\n\ndata: [DO";
        String second = "NE]\n\n";
        String chunked = Integer.toHexString(first.length()) + "\r\n" + first + "\r\n"
                + Integer.toHexString(second.length()) + "\r\n" + second + "\r\n0\r\n\r\n";
        try (ScriptedHttpServer server = new ScriptedHttpServer("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + chunked, false)) {
            BenchReport report = run(server.baseUrl(), true);

            assertThat(report.errors()).isZero();
            assertThat(report.total().count()).isEqualTo(report.requests()).isPositive();
            assertThat(report.firstByte().count()).isEqualTo(report.requests());
        }
    }

    @Test
    void run_connectionCloseAnswers_reconnectsAndSucceeds() throws Exception {
        try (ScriptedHttpServer server = new ScriptedHttpServer(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", true)) {
            BenchReport report = run(server.baseUrl(), false);

            assertThat(report.errors()).isZero();
            assertThat(report.requests()).isGreaterThan(1);
            assertThat(server.requests()).isEqualTo((int) report.requests());
        }
    }

    @Test
    void run_garbageAnswer_countsProtocolError() throws Exception {
        try (ScriptedHttpServer server = new ScriptedHttpServer("SPDY/9 what\r\n\r\n", false)) {
            BenchReport report = run(server.baseUrl(), false);

            assertThat(report.errorsByKind()).containsOnlyKeys("protocol");
            assertThat(report.errors()).isEqualTo(report.requests()).isPositive();
        }
    }
}
