package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of {@code bench overload}: capacity, what counts as unexpected, the queue bound, the probe. */
class BenchOverloadCommandTest {

    private static final LatencySummary NONE = new LatencySummary(0, 0, 0, 0, 0, 0, 0);

    @Test
    void capacity_isConcurrencyOverTheWholeAnswerTime() {
        // 100 ms to the first token, 15 more tokens at 10 ms: 250 ms a request, 8 at once.
        assertThat(BenchOverloadCommand.capacity(8, 100, 10, 16)).isCloseTo(32.0, within(1e-9));
        assertThat(BenchOverloadCommand.capacity(1, 0, 1, 1001)).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void unexpected_acceptsRejectionsAlwaysAndTimeoutsOnlyWithoutAdmission() {
        BenchReport report = new BenchReport(10, 6, Map.of("http_429", 3L, "http_503", 1L, "timeout", 2L),
                Map.of(200, 4L, 429, 3L, 503, 1L), 1, 4, NONE, NONE);
        assertThat(BenchOverloadCommand.unexpected(report, false)).isZero();
        assertThat(BenchOverloadCommand.unexpected(report, true)).isEqualTo(2);
        BenchReport broken = new BenchReport(3, 3, Map.of("connect", 1L, "http_502", 1L, "generator_backlog", 1L),
                Map.of(502, 1L), 1, 0, NONE, NONE);
        assertThat(BenchOverloadCommand.unexpected(broken, false)).isEqualTo(3);
    }

    @Test
    void unexpected_probe_countsOtherStatusesAndFailures() {
        StatusProbe.Result probe = new StatusProbe.Result(
                Map.of(200, new long[] {1}, 429, new long[] {2, 3}, 503, new long[] {4}, 500, new long[] {5}),
                Map.of("timeout", 2L, "connect", 1L));
        assertThat(BenchOverloadCommand.unexpected(probe, true)).isEqualTo(4); // 500, 2 timeouts, connect
        assertThat(BenchOverloadCommand.unexpected(probe, false)).isEqualTo(2); // 500, connect
    }

    @Test
    void queueBound_isRateTimesMaxQueueTimePerClass() {
        assertThat(BenchOverloadCommand.queueBound(16, Duration.ofSeconds(2), 80, Duration.ofSeconds(10)))
                .isCloseTo(832, within(1e-9));
    }

    @Test
    void label_readsOneLabelOfASampleLine() {
        String labels = "backend=\"sim\",class=\"batch\",reason=\"wait_too_long\"";
        assertThat(BenchOverloadCommand.label(labels, "class")).isEqualTo("batch");
        assertThat(BenchOverloadCommand.label(labels, "reason")).isEqualTo("wait_too_long");
        assertThat(BenchOverloadCommand.label(labels, "tenant")).isEmpty();
    }

    @Test
    void percentiles_areNearestRank() {
        long[] micros = new long[100];
        for (int i = 0; i < 100; i++) {
            micros[i] = (100 - i) * 1000L; // 1..100 ms, reversed
        }
        StatusProbe.Percentiles p = StatusProbe.Percentiles.of(micros);
        assertThat(p.count()).isEqualTo(100);
        assertThat(p.p50Ms()).isEqualTo(50.0);
        assertThat(p.p99Ms()).isEqualTo(99.0);
        assertThat(p.maxMs()).isEqualTo(100.0);
        assertThat(StatusProbe.Percentiles.of(new long[0]).count()).isZero();
        assertThat(StatusProbe.Percentiles.of(new long[] {1500}).p99Ms()).isEqualTo(1.5);
    }

    @Test
    void probe_parsesResponseHeads() throws Exception {
        String head = "HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\nContent-Length: 120\r\n";
        assertThat(StatusProbe.status(head)).isEqualTo(429);
        assertThat(StatusProbe.contentLength(head)).isEqualTo(120);
        assertThat(StatusProbe.contentLength("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked")).isEqualTo(-1);
        assertThat(StatusProbe.headEnd("HTTP/1.1 200 OK\r\n\r\nbody".getBytes(StandardCharsets.US_ASCII))).isEqualTo(15);
        assertThat(StatusProbe.headEnd("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(-1);
    }

    @Test
    void probe_encodesAKeepAlivePostWithItsHeaders() {
        byte[] request = StatusProbe.encode(URI.create("http://127.0.0.1:8080"), "/v1/chat/completions",
                "{}".getBytes(StandardCharsets.UTF_8), Map.of("X-Priority", "batch"));
        assertThat(new String(request, StandardCharsets.US_ASCII)).startsWith("POST /v1/chat/completions HTTP/1.1\r\n")
                .contains("Host: 127.0.0.1:8080\r\n", "Content-Length: 2\r\n", "X-Priority: batch\r\n")
                .doesNotContain("Connection")
                .endsWith("\r\n\r\n{}");
    }

    @Test
    void probe_chunkedBodyEndsAtItsLastChunk_headersReadByName() {
        assertThat(StatusProbe.endsWithLastChunk("\r\n5\r\nhello\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
                .isTrue();
        assertThat(StatusProbe.endsWithLastChunk("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))).isTrue();
        // A chunk of 0x10 bytes is not the last chunk.
        assertThat(StatusProbe.endsWithLastChunk("\r\n10\r\n\r\n".getBytes(StandardCharsets.US_ASCII))).isFalse();
        String head = "HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nretry-after: 3";
        assertThat(StatusProbe.header(head, "connection")).isEqualTo("close");
        assertThat(StatusProbe.header(head, "Retry-After")).isEqualTo("3");
        assertThat(StatusProbe.header(head, "content-length")).isEmpty();
    }

    @Test
    void scrapes_sumMatchingSamplesAndReadProcStatus() {
        String page = """
                # HELP cachegate_queue_depth Requests waiting
                cachegate_queue_depth{backend="sim",class="batch"} 12.0
                cachegate_queue_depth{backend="sim",class="interactive"} 3.0
                cachegate_requests_total{endpoint="chat",route="0",status="200"} 40.0
                cachegate_requests_total{endpoint="chat",route="0",status="429"} 7.0
                cachegate_admission_overloaded{backend="sim"} 1.0
                """;
        assertThat(BenchScrapes.metric(page, "cachegate_queue_depth")).isEqualTo(15.0);
        assertThat(BenchScrapes.metric(page, "cachegate_queue_depth", "class=\"batch\"")).isEqualTo(12.0);
        assertThat(BenchScrapes.metric(page, "cachegate_requests_total", "route=\"0\"", "status=\"200\""))
                .isEqualTo(40.0);
        assertThat(BenchScrapes.metric(page, "cachegate_queue_tokens")).isNaN();
        assertThat(BenchScrapes.statusKib("Name:\tjava\nVmHWM:\t  300000 kB\nVmRSS:\t  251904 kB\n", "VmRSS"))
                .isEqualTo(251904);
        assertThat(BenchScrapes.statusKib("Name:\tjava\n", "VmRSS")).isEqualTo(-1);
    }

    @Test
    void simStats_parsesWithAndWithoutThePrefixCache() {
        BenchScrapes.SimStats plain = BenchScrapes.SimStats.parse(
                "{\"requests\":5,\"completed\":4,\"cancelled\":0,\"errors\":0,\"hung\":0,\"active\":1,\"queued\":0}");
        assertThat(plain.requests()).isEqualTo(5);
        assertThat(plain.idle()).isFalse();
        assertThat(plain.prefixBlocksQueried()).isZero();
        BenchScrapes.SimStats prefix = BenchScrapes.SimStats.parse("{\"requests\":9,\"completed\":9,\"cancelled\":0,"
                + "\"errors\":0,\"hung\":0,\"active\":0,\"queued\":0,\"prefix_blocks_queried\":100,"
                + "\"prefix_blocks_hit\":80,\"prefix_hit_requests\":7,\"prefix_blocks_cached\":50,"
                + "\"prefix_cache_blocks\":512}");
        assertThat(prefix.idle()).isTrue();
        assertThat(prefix.prefixBlocksHit()).isEqualTo(80);
        assertThat(prefix.prefixHitRequests()).isEqualTo(7);
    }
}
