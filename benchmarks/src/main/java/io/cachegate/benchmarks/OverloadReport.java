package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.bench.BenchReport;
import io.cachegate.config.Durations;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** What {@code bench overload} prints: every phase of every round, the medians, and the targets. Pure formatting. */
final class OverloadReport implements ScenarioReport {

    private static final List<String> PHASES = List.of("unloaded", "admission-on", "admission-off");

    private final BenchOverloadCommand run;
    private final List<Map<String, OverloadPhase.Phase>> rounds;
    private final double capacity;
    private final double interactiveRate;
    private final double batchRate;
    private final double seconds;
    private final File logs;

    OverloadReport(BenchOverloadCommand run, List<Map<String, OverloadPhase.Phase>> rounds, double capacity,
                   double interactiveRate, double batchRate, double seconds, File logs) {
        this.run = run;
        this.rounds = rounds;
        this.capacity = capacity;
        this.interactiveRate = interactiveRate;
        this.batchRate = batchRate;
        this.seconds = seconds;
        this.logs = logs;
    }

    double median(String phase, ToDoubleFunction<OverloadPhase.Phase> f) {
        return Medians.of(rounds.stream().map(r -> r.get(phase)).mapToDouble(f));
    }

    double offered(BenchReport report, StatusProbe.Result probe) {
        if (report == null) {
            return 0;
        }
        long probeAll = probe == null ? 0 : probe.between(100, 599).length + probe.failures().values().stream()
                .mapToLong(Long::longValue).sum();
        return (report.requests() + probeAll) / seconds;
    }

    static StatusProbe.Percentiles rejections(OverloadPhase.Phase p, int status) {
        List<long[]> parts = new ArrayList<>();
        for (StatusProbe.Result r : new StatusProbe.Result[] {p.interactiveProbe(), p.batchProbe()}) {
            if (r != null) {
                parts.add(r.between(status, status));
            }
        }
        return StatusProbe.Percentiles.of(parts.stream().flatMapToLong(Arrays::stream).toArray());
    }

    static long rejected(BenchReport report, StatusProbe.Result probe, int status) {
        return (report == null ? 0 : report.statusCounts().getOrDefault(status, 0L))
                + (probe == null ? 0 : probe.count(status));
    }

    double bound() {
        return BenchOverloadCommand.queueBound(interactiveRate, Durations.parse(run.interactiveMaxQueue), batchRate,
                Durations.parse(run.batchMaxQueue));
    }

    long unexpectedErrors() {
        long n = 0;
        for (Map<String, OverloadPhase.Phase> r : rounds) {
            for (Map.Entry<String, OverloadPhase.Phase> e : r.entrySet()) {
                boolean admission = !"admission-off".equals(e.getKey());
                OverloadPhase.Phase p = e.getValue();
                n += BenchOverloadCommand.unexpected(p.interactive(), admission);
                n += p.batch() == null ? 0 : BenchOverloadCommand.unexpected(p.batch(), admission);
                n += p.interactiveProbe() == null ? 0 : BenchOverloadCommand.unexpected(p.interactiveProbe(), admission);
                n += p.batchProbe() == null ? 0 : BenchOverloadCommand.unexpected(p.batchProbe(), admission);
            }
        }
        return n;
    }

    double p99Ratio(String phase) {
        return median(phase, p -> p.interactive().firstByte().p99Ms())
                / median("unloaded", p -> p.interactive().firstByte().p99Ms());
    }

    double maxRejectionMs() {
        return rounds.stream().flatMap(r -> r.values().stream()).mapToDouble(p -> rejections(p, 429).maxMs())
                .filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }

    private static double queue(OverloadPhase.Phase p) {
        return p.maxima().interactiveQueue() + p.maxima().batchQueue() + p.maxima().simQueued();
    }

    @Override
    public String failure() {
        long unexpected = unexpectedErrors();
        return unexpected == 0 ? null
                : unexpected + " unexpected errors (see the error kinds above); logs in " + logs;
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("%nOverload: simulator capacity C = %.1f requests/s (%d sequences at once, ttft %d ms + %d x %.0f ms "
                        + "per request); offered interactive %.1f/s (%.2f x C) + batch %.1f/s (%.2f x C) = %.2f x C; "
                        + "streamed, %s per phase, %d rounds, %d cores", capacity, run.simulator.maxConcurrency(),
                run.simulator.ttftMs(), run.maxTokens - 1, run.simulator.tpotMs(), interactiveRate, run.interactiveLoad, batchRate, run.batchLoad,
                run.interactiveLoad + run.batchLoad, Durations.format(run.options.duration()), rounds.size(),
                Runtime.getRuntime().availableProcessors());
        out.line("Unloaded baseline: interactive alone at the same %.1f/s through the admission gateway. Queues: "
                + "interactive %s, batch %s (share 0.1, pausable, at most %.0f%% of the slots).", interactiveRate,
                run.interactiveMaxQueue, run.batchMaxQueue, run.batchMaxInflightShare * 100);
        out.line("%n%-22s %8s %8s %8s %9s %9s %7s %7s %8s %8s %8s %6s %6s %6s %7s", "phase", "TTFT p50", "TTFT p99",
                "p99 x", "int ok/s", "batch ok/s", "429s", "503s", "rej p50", "rej p99", "rej max", "q int", "q bat",
                "q sim", "RSS MiB");
        for (int r = 0; r < rounds.size(); r++) {
            double base = rounds.get(r).get("unloaded").interactive().firstByte().p99Ms();
            for (Map.Entry<String, OverloadPhase.Phase> e : rounds.get(r).entrySet()) {
                OverloadPhase.Phase p = e.getValue();
                OverloadPhase.Maxima m = p.maxima();
                StatusProbe.Percentiles rej = rejections(p, 429);
                out.line("%-22s %8.1f %8.1f %8.2f %9.1f %9.1f %7d %7d %8.2f %8.2f %8.2f %6.0f %6.0f %6d %7d",
                        "r" + (r + 1) + " " + e.getKey(), p.interactive().firstByte().p50Ms(),
                        p.interactive().firstByte().p99Ms(), p.interactive().firstByte().p99Ms() / base,
                        m.interactiveOkPerSecond(), m.batchOkPerSecond(),
                        rejected(p.interactive(), p.interactiveProbe(), 429) + rejected(p.batch(), p.batchProbe(), 429),
                        rejected(p.interactive(), p.interactiveProbe(), 503) + rejected(p.batch(), p.batchProbe(), 503),
                        rej.p50Ms(), rej.p99Ms(), rej.maxMs(), m.interactiveQueue(), m.batchQueue(), m.simQueued(),
                        m.gatewayRssKib() / 1024);
            }
        }
        out.line("(TTFT = first byte of streamed answers, ms, successful interactive requests, from the intended send "
                + "time; p99 x = / the round's unloaded p99; ok/s = the gateway's 200 answers per second over the "
                + "recorded window; rej = latency of the 429 answers to the probe, ms; q = largest queue sampled every "
                + "250 ms: the gateway's per class, the simulator's own; RSS = the gateway's largest VmRSS.)");
        for (int r = 0; r < rounds.size(); r++) {
            for (Map.Entry<String, OverloadPhase.Phase> e : rounds.get(r).entrySet()) {
                OverloadPhase.Phase p = e.getValue();
                out.line("r%d %-14s interactive %s errors %s; batch %s errors %s%s%s", r + 1, e.getKey(),
                        p.interactive().statusCounts(), p.interactive().errorsByKind(),
                        p.batch() == null ? "-" : p.batch().statusCounts(),
                        p.batch() == null ? "-" : p.batch().errorsByKind(),
                        p.rejections().isEmpty() ? "" : "; gateway rejections " + p.rejections(),
                        p.maxima().overloaded() ? "; overload mode entered" : "");
            }
        }
        out.line("%nMedians of %d rounds", rounds.size());
        out.line("%-14s %9s %9s %8s %10s %10s %9s %9s %9s", "phase", "TTFT p50", "TTFT p99", "p99 x", "int ok/s",
                "batch ok/s", "rej p99", "max queue", "RSS MiB");
        for (String phase : PHASES) {
            out.line("%-14s %9.1f %9.1f %8.2f %10.1f %10.1f %9.2f %9.0f %9.0f", phase,
                    median(phase, p -> p.interactive().firstByte().p50Ms()),
                    median(phase, p -> p.interactive().firstByte().p99Ms()), p99Ratio(phase),
                    median(phase, p -> p.maxima().interactiveOkPerSecond()),
                    median(phase, p -> p.maxima().batchOkPerSecond()), median(phase, p -> rejections(p, 429).p99Ms()),
                    median(phase, OverloadReport::queue), median(phase, p -> p.maxima().gatewayRssKib() / 1024.0));
        }
        double ratio = p99Ratio("admission-on");
        double maxRej = maxRejectionMs();
        double bound = bound();
        double qOn = median("admission-on", OverloadReport::queue);
        out.line("%nTargets (admission on):");
        out.line("  interactive p99 TTFT <= 2 x unloaded: %.2f x  %s (admission off: %.2f x)", ratio,
                ratio <= 2 ? "met" : "NOT met", p99Ratio("admission-off"));
        out.line("  every rejection within 5 ms: slowest 429 %.2f ms  %s", maxRej,
                Double.isNaN(maxRej) ? "(no 429 seen)" : maxRej <= 5 ? "met" : "NOT met");
        out.line("  queues bounded: largest queue %.0f requests (gateway + simulator) <= %.0f = rate x max queue time "
                + "per class  %s (admission off: %.0f)", qOn, bound, qOn <= bound ? "met" : "NOT met",
                median("admission-off", OverloadReport::queue));
        return out.toString();
    }

    @Override
    public JsonNode json() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cores", Runtime.getRuntime().availableProcessors());
        out.put("capacityPerSecond", capacity);
        out.put("interactiveRate", interactiveRate);
        out.put("batchRate", batchRate);
        out.put("durationSeconds", seconds);
        List<Object> rs = new ArrayList<>();
        for (Map<String, OverloadPhase.Phase> r : rounds) {
            Map<String, Object> round = new LinkedHashMap<>();
            r.forEach((name, p) -> {
                Map<String, Object> phase = new LinkedHashMap<>();
                phase.put("interactive", p.interactive());
                phase.put("batch", p.batch());
                phase.put("interactiveGoodput", p.maxima().interactiveOkPerSecond());
                phase.put("batchGoodput", p.maxima().batchOkPerSecond());
                phase.put("offeredInteractive", offered(p.interactive(), p.interactiveProbe()));
                phase.put("offeredBatch", offered(p.batch(), p.batchProbe()));
                phase.put("rejection429", rejections(p, 429));
                phase.put("rejection503", rejections(p, 503));
                phase.put("maxima", p.maxima());
                phase.put("gatewayRejections", p.rejections());
                round.put(name, phase);
            });
            rs.add(round);
        }
        out.put("rounds", rs);
        Map<String, Object> medians = new LinkedHashMap<>();
        for (String phase : PHASES) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ttftP50Ms", median(phase, p -> p.interactive().firstByte().p50Ms()));
            m.put("ttftP99Ms", median(phase, p -> p.interactive().firstByte().p99Ms()));
            m.put("ttftP99VsUnloaded", p99Ratio(phase));
            m.put("interactiveGoodput", median(phase, p -> p.maxima().interactiveOkPerSecond()));
            m.put("batchGoodput", median(phase, p -> p.maxima().batchOkPerSecond()));
            m.put("rejectionP99Ms", median(phase, p -> rejections(p, 429).p99Ms()));
            m.put("maxQueue", median(phase, OverloadReport::queue));
            m.put("gatewayRssMiB", median(phase, p -> p.maxima().gatewayRssKib() / 1024.0));
            medians.put(phase, m);
        }
        out.put("medians", medians);
        out.put("queueBound", bound());
        out.put("maxRejectionMs", maxRejectionMs());
        out.put("unexpectedErrors", unexpectedErrors());
        return BenchJson.tree(out);
    }
}
