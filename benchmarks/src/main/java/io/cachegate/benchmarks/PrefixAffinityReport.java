package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.benchmarks.BenchPrefixAffinityCommand.Config;
import java.util.ArrayList;
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

    private List<Config> configs() {
        List<Config> out = new ArrayList<>();
        for (int g : run.gateways) {
            run.balances.forEach(b -> out.add(new Config(b, g)));
        }
        return out;
    }

    private List<BenchPrefixAffinityCommand.Run> of(String workload, Config config) {
        return runs.stream().filter(r -> r.workload().equals(workload) && r.config().equals(config)).toList();
    }

    double median(String workload, Config config, ToDoubleFunction<BenchPrefixAffinityCommand.Run> f) {
        return Medians.of(of(workload, config).stream().mapToDouble(f));
    }

    double meanTtft(String workload, Config config) {
        return median(workload, config, r -> r.report().firstByte().meanMs());
    }

    /** Round robin's mean TTFT (with as many gateways) over this policy's: how many times lower this one's is. */
    double gain(String workload, Config config) {
        return run.balances.contains(BenchPrefixAffinityCommand.BASELINE)
                ? meanTtft(workload, new Config(BenchPrefixAffinityCommand.BASELINE, config.gateways()))
                        / meanTtft(workload, config) : Double.NaN;
    }

    @Override
    public String failure() {
        long errors = runs.stream().mapToLong(r -> r.report().errors()).sum();
        return errors == 0 ? null : errors + " requests failed (see the error kinds above)";
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("%nPrefix affinity: %d simulator replicas, each %d sequences at once, prefix cache of %d blocks x 16 "
                        + "tokens (--kv-events); TTFT = %d ms + %.2f ms per uncached prompt word (prefill dominates), then %.0f ms per "
                        + "token; %.1f requests/s, streamed; %d round(s); %d cores", run.replicas,
                run.simulator.maxConcurrency(), run.prefixCacheBlocks, run.simulator.ttftMs(), run.prefillMsPerToken,
                run.simulator.tpotMs(), run.rate, run.options.rounds(),
                Runtime.getRuntime().availableProcessors());
        for (PrefixWorkloads.Workload w : sets) {
            out.line("%nWorkload %s: %s", w.name(), w.description());
            out.line("%-20s %10s %10s %10s %9s %12s %9s %9s %9s  %s", "balance", "TTFT mean", "TTFT p90",
                    "TTFT p99", "cached", "max/mean", "vs RR", "idx err", "lag p99", "requests per replica");
            for (Config c : configs()) {
                String perReplica = of(w.name(), c).stream()
                        .map(r -> r.replicas().stream().map(s -> Long.toString(s.requests())).toList().toString())
                        .reduce((x, y) -> x + " " + y).orElse("");
                out.line("%-20s %10.1f %10.1f %10.1f %9.3f %12.2f %9.2f %9.3f %9.1f  %s", c, meanTtft(w.name(), c),
                        median(w.name(), c, r -> r.report().firstByte().p90Ms()),
                        median(w.name(), c, r -> r.report().firstByte().p99Ms()),
                        median(w.name(), c, BenchPrefixAffinityCommand.Run::hitRate),
                        median(w.name(), c, BenchPrefixAffinityCommand.Run::maxOverMean), gain(w.name(), c),
                        median(w.name(), c, BenchPrefixAffinityCommand.Run::indexError),
                        median(w.name(), c, BenchPrefixAffinityCommand.Run::eventLagP99Ms), perReplica);
            }
            for (int g : run.gateways) {
                Config kv = new Config("kv_aware", g);
                Config prefix = new Config("prefix_affinity", g);
                if (run.balances.contains(kv.balance()) && run.balances.contains(prefix.balance())) {
                    double ratio = meanTtft(w.name(), prefix) / meanTtft(w.name(), kv);
                    double error = median(w.name(), kv, BenchPrefixAffinityCommand.Run::indexError);
                    double late = median(w.name(), kv, BenchPrefixAffinityCommand.Run::lateGatewayMs);
                    out.line("Targets (%d gateway(s)): kv_aware mean TTFT >= 1.3x lower than prefix_affinity: %.2fx %s; "
                                    + "index within 2%% of the replicas' blocks: %.3f %s; a late gateway at 90%% within "
                                    + "2 s: %.0f ms %s", g, ratio, ratio >= 1.3 ? "met" : "NOT met", error,
                            error <= 0.02 ? "met" : "NOT met", late, late <= 2000 ? "met" : "NOT met");
                }
            }
        }
        out.line("(TTFT in ms = first byte of the streamed answer, from the intended send time; hit rate = prefix blocks "
                + "hit / looked up, summed over the replicas, i.e. the share of full prompt blocks served from cache; "
                + "idx err = the largest |gateway's blocks - replica's| / replica's after the run (kv_aware); lag p99 = "
                + "event lag p99 in ms, histogram bucket edge; max/mean = the busiest replica's requests over the mean; "
                + "vs RR = round robin's mean TTFT / this one's.)");
        return out.toString();
    }

    @Override
    public JsonNode json() {
        ObjectNode out = BenchJson.object().put("cores", Runtime.getRuntime().availableProcessors())
                .put("replicas", run.replicas).put("prefillMsPerToken", run.prefillMsPerToken)
                .put("prefixCacheBlocks", run.prefixCacheBlocks).put("rate", run.rate);
        ArrayNode results = out.putArray("results");
        ArrayNode ws = out.putArray("workloads");
        for (PrefixWorkloads.Workload w : sets) {
            ObjectNode wm = ws.addObject().put("name", w.name()).put("description", w.description());
            ArrayNode bm = wm.putArray("configs");
            for (Config c : configs()) {
                results.addObject().put("workload", w.name()).put("balance", c.balance()).put("gateways", c.gateways())
                        .put("ttft_mean_ms", meanTtft(w.name(), c))
                        .put("ttft_p90_ms", median(w.name(), c, r -> r.report().firstByte().p90Ms()))
                        .put("cached_prompt_share", median(w.name(), c, BenchPrefixAffinityCommand.Run::hitRate))
                        .put("index_error", median(w.name(), c, BenchPrefixAffinityCommand.Run::indexError))
                        .put("event_lag_p99_ms", median(w.name(), c, BenchPrefixAffinityCommand.Run::eventLagP99Ms))
                        .put("late_gateway_90pct_ms", median(w.name(), c, BenchPrefixAffinityCommand.Run::lateGatewayMs))
                        .put("uncached_estimate_error",
                                median(w.name(), c, BenchPrefixAffinityCommand.Run::uncachedEstimateError))
                        .put("rounds", of(w.name(), c).size());
                ObjectNode m = bm.addObject().put("balance", c.balance()).put("gateways", c.gateways())
                        .put("ttftMeanMs", meanTtft(w.name(), c))
                        .put("ttftP99Ms", median(w.name(), c, r -> r.report().firstByte().p99Ms()))
                        .put("prefixHitRate", median(w.name(), c, BenchPrefixAffinityCommand.Run::hitRate))
                        .put("maxOverMeanLoad", median(w.name(), c, BenchPrefixAffinityCommand.Run::maxOverMean))
                        .put("meanTtftGainVsRoundRobin", gain(w.name(), c));
                ArrayNode rs = m.putArray("runs");
                for (BenchPrefixAffinityCommand.Run r : of(w.name(), c)) {
                    rs.addObject().<ObjectNode>set("report", BenchJson.tree(r.report()))
                            .set("replicas", BenchJson.tree(r.replicas()));
                }
            }
        }
        return out;
    }
}
