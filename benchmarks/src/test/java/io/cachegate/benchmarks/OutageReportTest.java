package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.benchmarks.OutageLoad.Kind;
import io.cachegate.benchmarks.OutageLoad.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The arithmetic of {@code bench overload --scenario outage}'s report and the windows it configures. */
class OutageReportTest {

    /** The simulator down in seconds 2 and 3, restarted at nanos 4e9. */
    private static final long RESTART = 4_000_000_000L;

    private static Outcome at(int second, int entry, Kind kind, boolean led, String error) {
        return new Outcome(second, second * 1_000_000_000L, entry, kind, led, error);
    }

    private static OutageReport report(long simCalls, Outcome... outcomes) {
        return new OutageReport(List.of(outcomes), 6, 2, 4, RESTART, simCalls, 2, 4, 3, 70);
    }

    @Test
    void report_staleDuringTheOutage_oneRefreshEach_passes() {
        OutageReport r = report(3,
                at(0, 0, Kind.HIT, false, ""), at(0, -1, Kind.GENERATED, true, ""),
                at(2, 0, Kind.STALE, false, ""), at(2, -1, Kind.ERROR, false, "502"),
                at(3, 1, Kind.STALE, false, ""), at(3, -1, Kind.ERROR, false, "502"),
                at(3, -1, Kind.ERROR, false, "503"),
                at(4, 0, Kind.GENERATED, true, ""), at(4, 0, Kind.GENERATED, false, ""), // a coalesced follower
                at(4, -1, Kind.GENERATED, true, ""), at(5, 1, Kind.GENERATED, true, ""), at(5, 0, Kind.HIT, false, ""));

        assertThat(r.cachedErrors()).isZero();
        assertThat(r.count(true, Kind.STALE, 2, 4)).isEqualTo(2);
        assertThat(r.outageErrors()).isEqualTo(Map.of("502", 2L, "503", 1L));
        assertThat(r.newPromptCalls()).isEqualTo(1);
        assertThat(r.refreshedEntries()).isEqualTo(2);
        assertThat(r.mostCallsForOneEntry()).isEqualTo(1);
        assertThat(r.staleEntryCalls()).isEqualTo(2);
        assertThat(r.failure()).isNull();
        assertThat(r.toText()).contains("target 0: met", "target one each: met");
        assertThat(r.json().path("seconds")).hasSize(6);
        assertThat(r.json().path("seconds").get(2).path("cached").path("stale").asLong()).isEqualTo(1);
    }

    @Test
    void report_anErrorForACachedEntry_orASecondCall_fails() {
        assertThat(report(1, at(2, 0, Kind.ERROR, false, "502"), at(4, 0, Kind.GENERATED, true, "")).failure())
                .contains("1 request(s) for an entry within its stale window got an error");
        // Two calls reached the simulator for one refreshed entry (the gateway did not coalesce them).
        assertThat(report(2, at(4, 0, Kind.GENERATED, true, "")).failure()).contains("2 call(s) for 1 entries");
        assertThat(report(0).failure()).as("nothing refreshed").isNotNull();
    }

    @Test
    void windows_entriesExpireMidOutage_staleWindowCoversTheRest() {
        assertThat(OutageScenario.ttlSeconds(Duration.ofSeconds(5), Duration.ofSeconds(60))).isEqualTo(35);
        assertThat(OutageScenario.ttlSeconds(Duration.ofSeconds(2), Duration.ofSeconds(3))).isEqualTo(4); // 3.5 up
        assertThat(OutageScenario.staleIfErrorSeconds(Duration.ofSeconds(60), Duration.ofSeconds(15))).isEqualTo(135);
    }
}
