package io.cachegate.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class AuditMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AuditMetrics metrics = new AuditMetrics(registry);

    @Test
    void wilsonInterval_matchesTheTextbookValues() {
        double[] none = AuditMetrics.wilson(0, 100);
        assertThat(none[0]).isZero();
        assertThat(none[1]).isCloseTo(0.0370, within(1e-4)); // the "rule of three" is 0.03; Wilson says 0.037
        double[] some = AuditMetrics.wilson(5, 100);
        assertThat(some[0]).isCloseTo(0.0215, within(1e-4));
        assertThat(some[1]).isCloseTo(0.1118, within(1e-4));
        assertThat(AuditMetrics.wilson(0, 0)).containsExactly(0, 1);
    }

    @Test
    void verdicts_areCountedByRouteAndTenant_andOnlyAuditsMakeTheRate() {
        metrics.verdict("audit", "0", "acme", true);
        metrics.verdict("audit", "0", "acme", false);
        metrics.verdict("explore", "0", "globex", false);

        AuditMetrics.Estimate route = metrics.snapshot().get("byRoute").get("0");
        assertThat(route.audited()).isEqualTo(2);
        assertThat(route.auditedWrong()).isEqualTo(1);
        assertThat(route.wrongHitRate()).isEqualTo(0.5);
        assertThat(route.explored()).isEqualTo(1);
        assertThat(route.exploredWrong()).isEqualTo(1);
        assertThat(metrics.snapshot().get("byTenant").get("globex").wrongHitRate()).as("no audits yet").isNull();
        assertThat(registry.get("cachegate.semantic.wrong.hit.rate").tag("route", "0").tag("bound", "estimate").gauge()
                .value()).isEqualTo(0.5);
        assertThat(registry.get("cachegate.semantic.verdicts").tag("source", "explore").tag("verdict", "wrong")
                .counter().count()).isEqualTo(1);
        assertThat(route.upperBound()).as("no budget, no bound").isNull();
    }

    @Test
    void underABudget_eachRoutesAuditedRate_getsItsAnytimeBound_againstTheBudget() {
        for (int i = 0; i < 600; i++) {
            metrics.verdict("audit", "clean", "acme", true);
            metrics.verdict("audit", "dirty", "acme", i % 50 != 0); // 12 wrong of 600: 2%
        }
        metrics.verdict("audit", "young", "acme", true);

        var byRoute = metrics.snapshot(0.01, 0.05).get("byRoute");

        assertThat(byRoute.get("clean").upperBound()).isBetween(0.0, 0.01);
        assertThat(byRoute.get("clean").withinBudget()).isTrue();
        assertThat(byRoute.get("dirty").upperBound()).isBetween(0.02, 0.06);
        assertThat(byRoute.get("dirty").withinBudget()).isFalse();
        assertThat(byRoute.get("young").upperBound()).as("one audit proves nothing").isGreaterThan(0.5);
        assertThat(byRoute.get("young").withinBudget()).isFalse();
        assertThat(metrics.snapshot(0, 0.05).get("byRoute").get("clean").upperBound()).isNull();
    }
}
