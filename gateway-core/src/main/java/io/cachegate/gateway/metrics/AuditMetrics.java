package io.cachegate.gateway.metrics;

import io.cachegate.cache.semantic.ErrorBound;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Verdicts on semantic hits: audits (a served hit asked again upstream) and explorations (a candidate that was
 * not served, compared with the fresh answer its query got), counted by route and tenant. The audits of a route
 * estimate its wrong-hit rate, with a 95% Wilson interval: {@code /admin/stats} and
 * {@code cachegate_semantic_wrong_hit_rate{bound=estimate|low|high}}; under an error budget, {@code /admin/stats} also
 * gives its always-valid upper bound ({@link ErrorBound}) against the budget. Explorations are not in that rate: they
 * judge candidates the cache did not serve.
 */
public final class AuditMetrics {

    /** The normal quantile of a two-sided 95% interval. */
    private static final double Z = 1.959964;

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Tally> routes = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Tally> tenants = new ConcurrentHashMap<>();

    AuditMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * One verdict.
     *
     * @param source {@code audit} or {@code explore}
     */
    public void verdict(String source, String route, String tenant, boolean right) {
        counter("cachegate.semantic.verdicts", "Verdicts on semantic answers: audits of served hits, explorations of "
                        + "candidates not served, by route, tenant and verdict",
                "source", source, "route", route, "tenant", tenant, "verdict", right ? "right" : "wrong").increment();
        boolean audit = "audit".equals(source);
        tally(routes, route, true).add(audit, right);
        tally(tenants, tenant, false).add(audit, right);
    }

    /** An audit that was due and not made, or made without a verdict: budget, overload, no_replica, failed, unjudged. */
    public void auditSkipped(String reason) {
        counter("cachegate.semantic.audits.skipped", "Audits not made (per-second budget, overload, no replica) or "
                + "without a verdict (upstream failed, answers not comparable)", "reason", reason).increment();
    }

    /** A wrong verdict acted on: {@code demote} or {@code purge}. */
    public void wrongEntry(String action) {
        counter("cachegate.semantic.entries.demoted", "Entries a wrong audit verdict demoted (exact repeats only) "
                + "or purged", "action", action).increment();
    }

    /** Verdict counts and wrong-hit rate estimates by route and by tenant, for {@code /admin/stats}. */
    public Map<String, Map<String, Estimate>> snapshot() {
        return snapshot(0, 0);
    }

    /**
     * The same, with each audited rate's always-valid upper bound against an error budget.
     *
     * @param budget the error budget, 0 for none (no bound then)
     * @param delta the chance the bound may fail, 0 for none
     */
    public Map<String, Map<String, Estimate>> snapshot(double budget, double delta) {
        ErrorBound bound = budget > 0 && budget < 0.5 && delta > 0 && delta < 1 ? new ErrorBound(budget, delta) : null;
        Map<String, Map<String, Estimate>> out = new TreeMap<>();
        out.put("byRoute", snapshot(routes, bound, budget));
        out.put("byTenant", snapshot(tenants, bound, budget));
        return out;
    }

    private static Map<String, Estimate> snapshot(Map<String, Tally> tallies, ErrorBound bound, double budget) {
        Map<String, Estimate> out = new TreeMap<>();
        tallies.forEach((name, t) -> out.put(name, t.estimate().against(bound, budget)));
        return out;
    }

    /**
     * @param wrongHitRate wrong audits / audits, null before any; {@code low} and {@code high} its 95% Wilson
     *                     interval (0 and 1 before any audit)
     * @param upperBound under an error budget, the always-valid upper bound on the rate ({@link ErrorBound}: it
     *                   fails at any time with at most the budget's delta), 1 before any audit; null without a budget
     * @param withinBudget whether that bound is within the budget: the audits alone prove the route's hits are;
     *                     null without a budget
     */
    public record Estimate(long audited, long auditedWrong, Double wrongHitRate, double low, double high,
                           long explored, long exploredWrong, Double upperBound, Boolean withinBudget) {

        Estimate against(ErrorBound bound, double budget) {
            if (bound == null) {
                return this;
            }
            double upper = bound.upper(auditedWrong, audited);
            return new Estimate(audited, auditedWrong, wrongHitRate, low, high, explored, exploredWrong, upper,
                    upper <= budget);
        }
    }

    /** The 95% Wilson score interval of {@code wrong} in {@code n}: honest at small n and near 0, unlike p ± z·se. */
    static double[] wilson(long wrong, long n) {
        if (n == 0) {
            return new double[] {0, 1};
        }
        double p = (double) wrong / n;
        double z2 = Z * Z;
        double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
        double half = Z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }

    private Tally tally(ConcurrentMap<String, Tally> tallies, String name, boolean gauges) {
        return tallies.computeIfAbsent(name, n -> {
            Tally t = new Tally();
            if (gauges) {
                String description = "Estimated share of a route's semantic hits that are wrong, from its audits: the "
                        + "estimate and its 95% Wilson interval";
                Gauge.builder("cachegate.semantic.wrong.hit.rate", t, Tally::rate).description(description)
                        .tag("route", n).tag("bound", "estimate").register(registry);
                Gauge.builder("cachegate.semantic.wrong.hit.rate", t, x -> x.estimate().low()).description(description)
                        .tag("route", n).tag("bound", "low").register(registry);
                Gauge.builder("cachegate.semantic.wrong.hit.rate", t, x -> x.estimate().high()).description(description)
                        .tag("route", n).tag("bound", "high").register(registry);
            }
            return t;
        });
    }

    private Counter counter(String name, String description, String... tags) {
        return counters.computeIfAbsent(name + '|' + String.join("|", tags),
                k -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    /** Counts of one route or tenant. */
    private static final class Tally {
        private final AtomicLong audited = new AtomicLong();
        private final AtomicLong auditedWrong = new AtomicLong();
        private final AtomicLong explored = new AtomicLong();
        private final AtomicLong exploredWrong = new AtomicLong();

        void add(boolean audit, boolean right) {
            (audit ? audited : explored).incrementAndGet();
            if (!right) {
                (audit ? auditedWrong : exploredWrong).incrementAndGet();
            }
        }

        double rate() {
            long n = audited.get();
            return n == 0 ? Double.NaN : (double) auditedWrong.get() / n;
        }

        Estimate estimate() {
            long n = audited.get();
            long w = auditedWrong.get();
            double[] interval = wilson(w, n);
            return new Estimate(n, w, n == 0 ? null : (double) w / n, interval[0], interval[1], explored.get(),
                    exploredWrong.get(), null, null);
        }
    }
}
