package io.cachegate.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What a run counts. Event loops write (wait-free: {@link Recorder}, {@link LongAdder}); the
 * monitoring thread alone reads, folding interval histograms into cumulative ones for the progress
 * line and the report. Latency is recorded only for successful requests of the recorded phase.
 */
final class RunStats {

    /** One hour in microseconds: anything slower is clamped (a timeout ends it sooner anyway). */
    static final long MAX_MICROS = 3_600_000_000L;
    private static final int DIGITS = 3;

    private final Recorder totalRecorder = new Recorder(MAX_MICROS, DIGITS);
    private final Recorder firstByteRecorder = new Recorder(MAX_MICROS, DIGITS);
    private final Recorder sendLagRecorder = new Recorder(MAX_MICROS, DIGITS);

    // Every phase, for the progress line.
    private final LongAdder sent = new LongAdder();
    private final LongAdder ended = new LongAdder();
    private final LongAdder failed = new LongAdder();

    // Recorded phase only, for the report.
    private final LongAdder requests = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final Map<String, LongAdder> errorsByKind = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> statusCounts = new ConcurrentHashMap<>();

    // Owned by the monitoring thread.
    private final Histogram total = new Histogram(MAX_MICROS, DIGITS);
    private final Histogram firstByte = new Histogram(MAX_MICROS, DIGITS);
    private final Histogram sendLag = new Histogram(MAX_MICROS, DIGITS);
    private Histogram totalInterval;
    private Histogram firstByteInterval;
    private Histogram sendLagInterval;

    /** A request was written; in the open loop, {@code lagNanos} after its intended time. */
    void sent(boolean recorded, boolean openLoop, long lagNanos) {
        sent.increment();
        if (recorded && openLoop) {
            sendLagRecorder.recordValue(clamp(Math.max(0, (lagNanos + 500) / 1_000)));
        }
    }

    /** A complete answer: a success unless its status is not 2xx or {@code streamError} is set. */
    void answered(int status, boolean recorded, long startNanos, long firstByteNanos, long endNanos,
                  ErrorKind streamError) {
        ended.increment();
        boolean ok = status >= 200 && status < 300 && streamError == null;
        if (!ok) {
            failed.increment();
        }
        if (!recorded) {
            return;
        }
        requests.increment();
        statusCounts.computeIfAbsent(status, s -> new LongAdder()).increment();
        if (!ok) {
            errors.increment();
            String kind = streamError != null && status >= 200 && status < 300 ? streamError.key()
                    : ErrorKind.statusKey(status);
            errorsByKind.computeIfAbsent(kind, k -> new LongAdder()).increment();
            return;
        }
        totalRecorder.recordValue(clamp(IntendedTimeSchedule.latencyMicros(startNanos, endNanos)));
        firstByteRecorder.recordValue(clamp(IntendedTimeSchedule.latencyMicros(startNanos, firstByteNanos)));
    }

    /** A request that ended without a complete answer. */
    void failed(ErrorKind kind, boolean recorded) {
        ended.increment();
        failed.increment();
        if (recorded) {
            requests.increment();
            errors.increment();
            errorsByKind.computeIfAbsent(kind.key(), k -> new LongAdder()).increment();
        }
    }

    long sentCount() {
        return sent.sum();
    }

    /** Requests that ended, with an answer or a failure. */
    long endedCount() {
        return ended.sum();
    }

    long failedCount() {
        return failed.sum();
    }

    /** Folds what the event loops recorded since the last call into the cumulative histograms. Monitor thread only. */
    void collect() {
        totalInterval = totalRecorder.getIntervalHistogram(totalInterval);
        total.add(totalInterval);
        firstByteInterval = firstByteRecorder.getIntervalHistogram(firstByteInterval);
        firstByte.add(firstByteInterval);
        sendLagInterval = sendLagRecorder.getIntervalHistogram(sendLagInterval);
        sendLag.add(sendLagInterval);
    }

    /** p99 of the recorded successes so far in ms, or -1 if none. Monitor thread only, after {@link #collect()}. */
    double p99SoFarMs() {
        return total.getTotalCount() == 0 ? -1 : total.getValueAtPercentile(99.0) / 1000.0;
    }

    /** The report; call after every event loop is done. Monitor thread only. */
    BenchReport report(double durationSeconds) {
        collect();
        long requestCount = requests.sum();
        long errorCount = errors.sum();
        Map<String, Long> kinds = new TreeMap<>();
        errorsByKind.forEach((k, v) -> kinds.put(k, v.sum()));
        Map<Integer, Long> statuses = new TreeMap<>();
        statusCounts.forEach((k, v) -> statuses.put(k, v.sum()));
        double throughput = durationSeconds > 0 ? (requestCount - errorCount) / durationSeconds : 0;
        return new BenchReport(requestCount, errorCount, kinds, statuses, durationSeconds, throughput,
                LatencySummary.ofMicros(total), LatencySummary.ofMicros(firstByte), LatencySummary.ofMicros(sendLag));
    }

    private static long clamp(long micros) {
        return Math.min(micros, MAX_MICROS);
    }
}
