package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NoisyTenantsTest {

    @Test
    void maxMinShares_giveSmallDemandsInFull_andSplitTheRest() {
        Map<String, Double> demands = new LinkedHashMap<>();
        demands.put("a", Double.POSITIVE_INFINITY);
        demands.put("b", 1.0);
        demands.put("c", 5.0);
        Map<String, Double> shares = NoisyTenants.maxMinShares(demands, 9);
        assertThat(shares).containsExactly(Map.entry("a", 4.0), Map.entry("b", 1.0), Map.entry("c", 4.0));
    }

    @Test
    void jain_isOneForEqualShares_andOneOverNForOneHoldingAll() {
        assertThat(NoisyTenants.jain(List.of(2.0, 2.0, 2.0))).isEqualTo(1.0);
        assertThat(NoisyTenants.jain(List.of(3.0, 0.0, 0.0))).isCloseTo(1 / 3.0, within(1e-12));
    }

    @Test
    void report_measuresQuietTenantsAgainstTheirAloneRate_andFairnessAgainstMaxMinShares() {
        Map<String, Map<String, NoisyTenants.Served>> round = new LinkedHashMap<>();
        round.put(NoisyTenantReport.ALONE, phase(Map.of("b", 40L, "c", 40L)));
        round.put(NoisyTenantReport.FAIR, phase(Map.of("a", 50L, "b", 20L, "c", 20L)));
        round.put(NoisyTenantReport.FIFO, phase(Map.of("a", 80L, "b", 5L, "c", 5L)));
        NoisyTenantReport report = new NoisyTenantReport(List.of(round), "a", List.of("b", "c"), 10, 8);

        assertThat(report.worstQuietOfAlone(NoisyTenantReport.FAIR)).isEqualTo(0.5);
        assertThat(report.worstQuietOfAlone(NoisyTenantReport.FIFO)).isEqualTo(0.125);
        assertThat(report.throughputRatio()).isEqualTo(1.0);
        // 9 answers/s in all, b and c owed 3 each (they ask for 4): fair gives 5, 2, 2 of shares 3, 3, 3.
        assertThat(report.jain(round, NoisyTenantReport.FAIR)).isCloseTo(NoisyTenants.jain(List.of(5 / 3.0, 2 / 3.0,
                2 / 3.0)), within(1e-12));
        assertThat(report.jain(round, NoisyTenantReport.FAIR)).isGreaterThan(report.jain(round, NoisyTenantReport.FIFO));
        assertThat(report.failure()).isNull();
        assertThat(report.toText()).contains("b served 50% of its alone rate in fair order, 13% first come first served");
    }

    private static Map<String, NoisyTenants.Served> phase(Map<String, Long> answers) {
        Map<String, NoisyTenants.Served> out = new LinkedHashMap<>();
        for (String t : List.of("a", "b", "c")) {
            if (answers.containsKey(t)) {
                out.put(t, new NoisyTenants.Served(t, 1, answers.get(t), 0, List.of(10.0)));
            }
        }
        return out;
    }
}
