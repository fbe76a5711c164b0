package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BenchReportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static BenchReport sample() {
        Histogram histogram = new Histogram(RunStats.MAX_MICROS, 3);
        for (int micros = 100; micros <= 1_000; micros++) {
            histogram.recordValue(micros);
        }
        LatencySummary total = LatencySummary.ofMicros(histogram);
        return new BenchReport(903, 2, Map.of("timeout", 1L, "http_500", 1L), Map.of(200, 901L, 500, 1L),
                10.0, 90.1, total, total, LatencySummary.EMPTY);
    }

    @Test
    void toJson_parsesWithJackson_andHasStableFields() throws IOException {
        JsonNode json = JSON.readTree(sample().toJson());

        assertThat(json.fieldNames()).toIterable().containsExactly("requests", "errors", "errorsByKind",
                "statusCounts", "durationSeconds", "throughput", "total", "firstByte", "sendLag");
        assertThat(json.get("requests").asLong()).isEqualTo(903);
        assertThat(json.get("errorsByKind").get("timeout").asLong()).isEqualTo(1);
        assertThat(json.get("statusCounts").get("200").asLong()).isEqualTo(901);
        assertThat(json.get("total").fieldNames()).toIterable()
                .containsExactly("count", "meanMs", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs");
        assertThat(json.get("total").get("count").asLong()).isEqualTo(901);
        assertThat(json.get("total").get("p50Ms").asDouble()).isBetween(0.54, 0.56);
        assertThat(json.get("firstByte").get("maxMs").asDouble()).isBetween(0.999, 1.001);
    }

    @Test
    void fromJson_toJson_roundTrips() {
        BenchReport report = sample();

        assertThat(BenchReport.fromJson(report.toJson())).isEqualTo(report);
    }

    @Test
    void constructor_specifiedEightArguments_hasEmptySendLag() {
        BenchReport report = new BenchReport(1, 0, Map.of(), Map.of(200, 1L), 1.0, 1.0, LatencySummary.EMPTY,
                LatencySummary.EMPTY);

        assertThat(report.sendLag()).isEqualTo(LatencySummary.EMPTY);
        assertThat(report.toText()).doesNotContain("send lag");
    }

    @Test
    void toText_showsRowsStatusesAndErrors() {
        String text = sample().toText();

        assertThat(text).contains("requests 903", "errors 2", "throughput 90.1 req/s", "total", "first byte",
                "200=901", "http_500=1", "timeout=1", "p99.9");
    }

    @Test
    void ofMicros_emptyHistogram_isAllZero() {
        assertThat(LatencySummary.ofMicros(new Histogram(RunStats.MAX_MICROS, 3))).isEqualTo(LatencySummary.EMPTY);
    }
}
