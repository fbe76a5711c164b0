package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * What {@code bench prefix-affinity} prints: per workload and balance policy, time to first token, the replicas'
 * prefix hit rate, the spread of the load and the gain over round robin, with the targets. Pure formatting.
 */
final class PrefixAffinityReport implements ScenarioReport {

    private final BenchPrefixAffinityCommand run;
    private final List<PrefixWorkloads.Workload> sets;
    private final List<BenchPrefixAffinityCommand.Run> runs;

    PrefixAffinityReport(BenchPrefixAffinityCommand run, List<PrefixWorkloads.Workload> sets,
                         List<BenchPrefixAffinityCommand.Run> runs) {
        this.run = run;
        this.sets = sets;
        this.runs = runs;
    }

    private List<BenchPrefixAffinityCommand.Run> of(String workload, String balance) {
        return runs.stream().filter(r -> r.workload().equals(workload) && r.balance().equals(balance)).toList();
    }

    double median(String workload, String balance, ToDoubleFunction<BenchPrefixAffinityCommand.Run> f) {
        return Medians.of(of(workload, balance).stream().mapToDouble(f));
    }

    double meanTtft(String workload, String balance) {
        return median(workload, balance, r -> r.report().firstByte().meanMs());
    }

    /** Round robin's mean TTFT over this policy's: how many times lower this policy's is. */
    double gain(String workload, String balance) {
        return run.balances.contains(BenchPrefixAffinityCommand.BASELINE)
                ? meanTtft(workload, BenchPrefixAffinityCommand.BASELINE) / meanTtft(workload, balance) : Double.NaN;
    }

    @Override
    public String failure() {
        long errors = runs.stream().mapToLong(r -> r.report().errors()).sum();
        return errors == 0 ? null : errors + " requests failed (see the error kinds above)";
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("%nPrefix affinity: %d simulator replicas, each %d sequences at once, prefix cache of %d blocks x 256 "
                        + "chars; TTFT = %d ms + %.2f ms per uncached prompt word (prefill dominates), then %.0f ms per "
                        + "token; %.1f requests/s, streamed; %d round(s); %d cores", run.replicas,
                run.simulator.maxConcurrency(), run.prefixCacheBlocks, run.simulator.ttftMs(), run.prefillMsPerToken,
                run.simulator.tpotMs(), run.rate, run.options.rounds(),
                Runtime.getRuntime().availableProcessors());
        for (PrefixWorkloads.Workload w : sets) {
            out.line("%nWorkload %s: %s", w.name(), w.description());
            out.line("%-16s %10s %10s %10s %9s %12s %9s  %s", "balance", "TTFT mean", "TTFT p50", "TTFT p99",
                    "hit rate", "max/mean", "vs RR", "requests per replica");
            for (String b : run.balances) {
                String perReplica = of(w.name(), b).stream()
                        .map(r -> r.replicas().stream().map(s -> Long.toString(s.requests())).toList().toString())
                        .reduce((x, y) -> x + " " + y).orElse("");
                out.line("%-16s %10.1f %10.1f %10.1f %9.3f %12.2f %9.2f  %s", b, meanTtft(w.name(), b),
                        median(w.name(), b, r -> r.report().firstByte().p50Ms()),
                        median(w.name(), b, r -> r.report().firstByte().p99Ms()),
                        median(w.name(), b, BenchPrefixAffinityCommand.Run::hitRate),
                        median(w.name(), b, BenchPrefixAffinityCommand.Run::maxOverMean), gain(w.name(), b), perReplica);
            }
            if (run.balances.contains("prefix_affinity") && run.balances.contains(BenchPrefixAffinityCommand.BASELINE)) {
                double g = gain(w.name(), "prefix_affinity");
                double spread = median(w.name(), "prefix_affinity", BenchPrefixAffinityCommand.Run::maxOverMean);
                out.line("Targets: mean TTFT >= 2x lower than round robin: %.2fx %s; no replica above 1.5x the mean "
                        + "load: %.2f %s", g, g >= 2 ? "met" : "NOT met", spread, spread <= 1.5 ? "met" : "NOT met");
            }
        }
        out.line("(TTFT in ms = first byte of the streamed answer, from the intended send time; hit rate = prefix blocks "
                + "hit / looked up, summed over the replicas; max/mean = the busiest replica's requests over the mean; "
                + "vs RR = round robin's mean TTFT / this one's.)");
        return out.toString();
    }

    @Override
    public JsonNode json() {
        ObjectNode out = BenchJson.object().put("cores", Runtime.getRuntime().availableProcessors())
                .put("replicas", run.replicas).put("prefillMsPerToken", run.prefillMsPerToken)
                .put("prefixCacheBlocks", run.prefixCacheBlocks).put("rate", run.rate);
        ArrayNode ws = out.putArray("workloads");
        for (PrefixWorkloads.Workload w : sets) {
            ObjectNode wm = ws.addObject().put("name", w.name()).put("description", w.description());
            ObjectNode bm = wm.putObject("balances");
            for (String b : run.balances) {
                ObjectNode m = bm.putObject(b).put("ttftMeanMs", meanTtft(w.name(), b))
                        .put("ttftP99Ms", median(w.name(), b, r -> r.report().firstByte().p99Ms()))
                        .put("prefixHitRate", median(w.name(), b, BenchPrefixAffinityCommand.Run::hitRate))
                        .put("maxOverMeanLoad", median(w.name(), b, BenchPrefixAffinityCommand.Run::maxOverMean))
                        .put("meanTtftGainVsRoundRobin", gain(w.name(), b));
                ArrayNode rs = m.putArray("runs");
                for (BenchPrefixAffinityCommand.Run r : of(w.name(), b)) {
                    rs.addObject().<ObjectNode>set("report", BenchJson.tree(r.report()))
                            .set("replicas", BenchJson.tree(r.replicas()));
                }
            }
        }
        return out;
    }
}
