package io.cachegate.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.ClassSpending;
import io.cachegate.cache.semantic.ClassWatch;
import io.cachegate.cache.semantic.HitEvidence;
import io.micrometer.core.instrument.search.MeterNotFoundException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class BudgetWatchMetricsTest {

    private static final double BUDGET = 0.01;
    private static final ClassSpending SPENDING = new ClassSpending(BUDGET, 0.05, ClassSpending.Plan.DEFAULT);
    /** Bin 11: classes 0-11 hold its verdicts, so they open together at 818 right and one wrong closes all twelve. */
    private static final double PRIOR = 0.9985;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BudgetWatchMetrics metrics = new BudgetWatchMetrics(registry);
    private final HitEvidence evidence = new HitEvidence(10_000);

    @Test
    void refresh_registersARoutesMeters_andTheyReadTheWatchAsOfTheLastRefresh() {
        metrics.watch(() -> evidence.watchFiguresByRoute(SPENDING, ClassWatch.DEFAULT));
        metrics.refresh();
        Assertions.assertThatThrownBy(() -> registry.get("cachegate.semantic.budget.classes.closed").gauge())
                .as("no route judged yet").isInstanceOf(MeterNotFoundException.class);

        String acme = HitEvidence.scope("0", "acme");
        for (int i = 0; i < 818; i++) {
            evidence.record(acme, "e" + i, 0.95f, PRIOR, true);
            evidence.upperErrorNested(acme, PRIOR, SPENDING, ClassWatch.DEFAULT); // the decision judging
        }
        evidence.record(acme, "bad", 0.95f, PRIOR, false);
        metrics.refresh();
        assertThat(closed("0")).isEqualTo(12);
        assertThat(events("0", "bound_closed")).isEqualTo(1);
        assertThat(events("0", "drift_closed")).isZero();
        assertThat(events("0", "reopened")).isZero();

        for (int i = 0; i < 818; i++) {
            evidence.record(acme, "f" + i, 0.95f, PRIOR, true);
        }
        assertThat(closed("0")).as("until the next scrape, the last one's figures").isEqualTo(12);
        metrics.refresh();
        assertThat(closed("0")).as("re-earned").isZero();
        assertThat(events("0", "reopened")).isEqualTo(1);
        assertThat(events("0", "bound_closed")).isEqualTo(1);
    }

    private double closed(String route) {
        return registry.get("cachegate.semantic.budget.classes.closed").tag("route", route).gauge().value();
    }

    private double events(String route, String event) {
        return registry.get("cachegate.semantic.budget.watch.events").tag("route", route).tag("event", event)
                .functionCounter().count();
    }
}
