package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What {@code bench overload --scenario noisy-tenant} prints: per round, each tenant's answers a second alone, in
 * fair order and first come first served, their p99 time to first byte, Jain's index over what each tenant got
 * against its max-min fair share, and the medians with the targets. Pure formatting and arithmetic.
 */
final class NoisyTenantReport implements ScenarioReport {

    static final String ALONE = "alone";
    static final String FAIR = "fair";
    static final String FIFO = "fifo";

    private final List<Map<String, Map<String, NoisyTenants.Served>>> rounds;
    private final String noisy;
    private final List<String> quiet;
    private final double seconds;
    private final double capacity;

    /**
     * @param rounds each round's phases ({@link #ALONE}, {@link #FAIR}, {@link #FIFO}) by tenant
     * @param noisy the tenant with many clients; {@code quiet} the others, which run alone too
     * @param capacity the backend's requests a second, for the header
     */
    NoisyTenantReport(List<Map<String, Map<String, NoisyTenants.Served>>> rounds, String noisy, List<String> quiet,
                      double seconds, double capacity) {
        this.rounds = rounds;
        this.noisy = noisy;
        this.quiet = quiet;
        this.seconds = seconds;
        this.capacity = capacity;
    }

    private double rate(Map<String, Map<String, NoisyTenants.Served>> round, String phase, String tenant) {
        return round.get(phase).get(tenant).perSecond(seconds);
    }

    /** What a quiet tenant got in {@code phase} against what it got alone. */
    double ofAlone(Map<String, Map<String, NoisyTenants.Served>> round, String phase, String tenant) {
        double alone = rate(round, ALONE, tenant);
        return alone == 0 ? 0 : rate(round, phase, tenant) / alone;
    }

    double total(Map<String, Map<String, NoisyTenants.Served>> round, String phase) {
        return round.get(phase).values().stream().mapToDouble(s -> s.perSecond(seconds)).sum();
    }

    /** Jain's index over each tenant's answers a second divided by its max-min share of the phase's total. */
    double jain(Map<String, Map<String, NoisyTenants.Served>> round, String phase) {
        Map<String, Double> demands = new LinkedHashMap<>();
        demands.put(noisy, Double.POSITIVE_INFINITY);
        quiet.forEach(t -> demands.put(t, rate(round, ALONE, t)));
        Map<String, Double> shares = NoisyTenants.maxMinShares(demands, total(round, phase));
        List<Double> relative = new ArrayList<>();
        shares.forEach((t, share) -> relative.add(share == 0 ? 0 : rate(round, phase, t) / share));
        return NoisyTenants.jain(relative);
    }

    private double median(ToDoubleFunction<Map<String, Map<String, NoisyTenants.Served>>> f) {
        return Medians.of(rounds.stream().mapToDouble(f));
    }

    /** The worst quiet tenant's median share of its alone rate in {@code phase}. */
    double worstQuietOfAlone(String phase) {
        return quiet.stream().mapToDouble(t -> median(r -> ofAlone(r, phase, t))).min().orElse(0);
    }

    double throughputRatio() {
        return median(r -> total(r, FAIR) / total(r, FIFO));
    }

    long errors() {
        return rounds.stream().flatMap(r -> r.values().stream()).flatMap(p -> p.values().stream())
                .mapToLong(NoisyTenants.Served::errors).sum();
    }

    @Override
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "noisy tenant: %s with many clients against %s, one class, backend "
                + "capacity %.1f requests/s; %.0f s recorded a phase%n", noisy, String.join(", ", quiet), capacity,
                seconds));
        for (int i = 0; i < rounds.size(); i++) {
            Map<String, Map<String, NoisyTenants.Served>> r = rounds.get(i);
            out.append(String.format(Locale.ROOT, "round %d%n  %-7s %-8s %8s %8s %12s %7s%n", i + 1, "phase",
                    "tenant", "clients", "answers/s", "p99 TTFT ms", "errors"));
            for (String phase : List.of(ALONE, FAIR, FIFO)) {
                for (NoisyTenants.Served s : r.get(phase).values()) {
                    out.append(String.format(Locale.ROOT, "  %-7s %-8s %8d %8.2f %12.0f %7d%n", phase, s.tenant(),
                            s.clients(), s.perSecond(seconds), s.p99Millis(), s.errors()));
                }
            }
            out.append(String.format(Locale.ROOT, "  Jain's index: fair %.3f, fifo %.3f; total answers/s: fair %.2f, "
                    + "fifo %.2f%n", jain(r, FAIR), jain(r, FIFO), total(r, FAIR), total(r, FIFO)));
        }
        out.append(String.format(Locale.ROOT, "medians over %d round(s):%n", rounds.size()));
        for (String t : quiet) {
            out.append(String.format(Locale.ROOT, "  %s served %.0f%% of its alone rate in fair order, %.0f%% first "
                    + "come first served%n", t, 100 * median(r -> ofAlone(r, FAIR, t)),
                    100 * median(r -> ofAlone(r, FIFO, t))));
        }
        double worstFair = worstQuietOfAlone(FAIR);
        double worstFifo = worstQuietOfAlone(FIFO);
        double jainFair = median(r -> jain(r, FAIR));
        double ratio = throughputRatio();
        out.append(String.format(Locale.ROOT, "  targets: quiet tenants >= 40%% of alone in fair order: %.0f%% (%s); "
                + "fifo < 20%%: %.0f%% (%s); throughput fair / fifo within 10%%: %.3f (%s); Jain's index >= 0.95: "
                + "%.3f (%s)%n", 100 * worstFair, met(worstFair >= 0.4), 100 * worstFifo, met(worstFifo < 0.2),
                ratio, met(Math.abs(ratio - 1) <= 0.1), jainFair, met(jainFair >= 0.95)));
        return out.toString();
    }

    private static String met(boolean met) {
        return met ? "met" : "not met";
    }

    @Override
    public JsonNode json() {
        ObjectNode root = BenchJson.object().put("scenario", "noisy-tenant").put("noisy", noisy)
                .put("capacity_rps", capacity).put("seconds", seconds);
        var list = root.putArray("rounds");
        for (Map<String, Map<String, NoisyTenants.Served>> r : rounds) {
            ObjectNode round = list.addObject();
            for (String phase : List.of(ALONE, FAIR, FIFO)) {
                ObjectNode p = round.putObject(phase);
                for (NoisyTenants.Served s : r.get(phase).values()) {
                    p.putObject(s.tenant()).put("clients", s.clients()).put("answers_per_second", s.perSecond(seconds))
                            .put("p99_ttft_ms", s.p99Millis()).put("errors", s.errors());
                }
            }
            round.put("jain_fair", jain(r, FAIR)).put("jain_fifo", jain(r, FIFO));
        }
        root.putObject("medians").put("worst_quiet_of_alone_fair", worstQuietOfAlone(FAIR))
                .put("worst_quiet_of_alone_fifo", worstQuietOfAlone(FIFO))
                .put("throughput_fair_over_fifo", throughputRatio())
                .put("jain_fair", median(r -> jain(r, FAIR)));
        return root;
    }

    @Override
    public String failure() {
        long errors = errors();
        return errors == 0 ? null : errors + " request(s) failed: with a 60 s queue time and closed-loop clients "
                + "none should (see the gateways' logs)";
    }
}
