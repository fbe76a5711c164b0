package io.cachegate.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The outcome of a run, over its recorded phase (warmup excluded). {@code requests} counts every
 * request of that phase that ended, errors included; {@code throughput} is successful requests per
 * second of {@code durationSeconds}, which runs from the end of the warmup until the last of those
 * requests ended (at least the configured duration). Latencies cover successful requests only.
 *
 * @param errorsByKind e.g. {@code connect}, {@code timeout}, {@code premature_close},
 *     {@code generator_backlog}, {@code http_500}
 * @param statusCounts complete answers by HTTP status
 * @param total from the latency start (intended send time in the open loop, actual send in the
 *     closed loop) to the end of the answer
 * @param firstByte from the same start to the first body byte
 * @param sendLag open loop only: how late requests were written after their intended time (timer
 *     wake-up, waiting for a free connection); a generator-health figure, already included in the
 *     latencies. Empty in the closed loop.
 */
@JsonPropertyOrder({"requests", "errors", "errorsByKind", "statusCounts", "durationSeconds", "throughput", "total",
    "firstByte", "sendLag"})
public record BenchReport(long requests, long errors, Map<String, Long> errorsByKind, Map<Integer, Long> statusCounts,
                          double durationSeconds, double throughput, LatencySummary total,
                          LatencySummary firstByte, LatencySummary sendLag) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public BenchReport {
        errorsByKind = Collections.unmodifiableMap(new TreeMap<>(errorsByKind == null ? Map.of() : errorsByKind));
        statusCounts = Collections.unmodifiableMap(new TreeMap<>(statusCounts == null ? Map.of() : statusCounts));
        total = total == null ? LatencySummary.EMPTY : total;
        firstByte = firstByte == null ? LatencySummary.EMPTY : firstByte;
        sendLag = sendLag == null ? LatencySummary.EMPTY : sendLag;
    }

    /** The report of the original specification, without {@link #sendLag()}. */
    public BenchReport(long requests, long errors, Map<String, Long> errorsByKind, Map<Integer, Long> statusCounts,
                       double durationSeconds, double throughput, LatencySummary total, LatencySummary firstByte) {
        this(requests, errors, errorsByKind, statusCounts, durationSeconds, throughput, total, firstByte,
                LatencySummary.EMPTY);
    }

    /**
     * JSON with the record's component names as stable field names: {@code requests, errors,
     * errorsByKind, statusCounts, durationSeconds, throughput, total, firstByte, sendLag}, the
     * latter three with {@code count, meanMs, p50Ms, p90Ms, p99Ms, p999Ms, maxMs}.
     */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads what {@link #toJson()} wrote, e.g. to compare a gateway run with a direct one. */
    public static BenchReport fromJson(String json) {
        try {
            return JSON.readValue(json, BenchReport.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a bench report: " + e.getOriginalMessage(), e);
        }
    }

    /** A table for people. */
    public String toText() {
        StringBuilder out = new StringBuilder(512);
        out.append(String.format(Locale.ROOT, "requests %d  errors %d  duration %.2f s  throughput %.1f req/s%n",
                requests, errors, durationSeconds, throughput));
        out.append(String.format(Locale.ROOT, "%-12s %9s %9s %9s %9s %9s %9s %9s%n",
                "latency ms", "count", "mean", "p50", "p90", "p99", "p99.9", "max"));
        row(out, "total", total);
        row(out, "first byte", firstByte);
        if (sendLag.count() > 0) {
            row(out, "send lag", sendLag);
        }
        out.append("status       ").append(statusCounts.isEmpty() ? "-" : join(statusCounts)).append(System.lineSeparator());
        out.append("errors       ").append(errorsByKind.isEmpty() ? "-" : join(errorsByKind)).append(System.lineSeparator());
        return out.toString();
    }

    private static void row(StringBuilder out, String name, LatencySummary s) {
        out.append(String.format(Locale.ROOT, "%-12s %9d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f%n",
                name, s.count(), s.meanMs(), s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(), s.maxMs()));
    }

    private static String join(Map<?, Long> counts) {
        return counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("  "));
    }
}
