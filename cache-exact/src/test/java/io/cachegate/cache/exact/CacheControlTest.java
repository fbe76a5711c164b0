package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CacheControlTest {

    @Test
    void parse_absentOrBlank_isNone() {
        assertThat(CacheControl.parse(null)).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse("  ")).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse(" , ,")).isEqualTo(CacheControl.NONE);
    }

    @Test
    void parse_directives_anyCaseAndSpacing() {
        assertThat(CacheControl.parse("No-Store")).isEqualTo(new CacheControl(true, false, OptionalLong.empty()));
        assertThat(CacheControl.parse("  NO-CACHE ,max-age = 60 "))
                .isEqualTo(new CacheControl(false, true, OptionalLong.of(60)));
        assertThat(CacheControl.parse("max-age=\"30\"").maxAgeSeconds()).hasValue(30);
        assertThat(CacheControl.parse("no-cache=\"x, y\", no-store").noStore()).isTrue();
    }

    @Test
    void parse_unknownDirectivesAndBadNumbers_areIgnored() {
        assertThat(CacheControl.parse("private, min-fresh=5, only-if-cached")).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse("max-stale=soon, stale-if-error")).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse("max-age=abc").maxAgeSeconds()).isEmpty();
        assertThat(CacheControl.parse("max-age=-5").maxAgeSeconds()).isEmpty();
        assertThat(CacheControl.parse("max-age=1.5").maxAgeSeconds()).isEmpty();
        assertThat(CacheControl.parse("max-age=").maxAgeSeconds()).isEmpty();
        assertThat(CacheControl.parse("max-age").maxAgeSeconds()).isEmpty();
        assertThat(CacheControl.parse("max-age=abc, no-store")).isEqualTo(new CacheControl(true, false, OptionalLong.empty()));
    }

    @Test
    void parse_hugeMaxAge_isCappedAndSeveralTakeTheSmallest() {
        assertThat(CacheControl.parse("max-age=99999999999999999999999").maxAgeSeconds()).hasValue(2_147_483_648L);
        assertThat(CacheControl.parse("max-age=60, max-age=10").maxAgeSeconds()).hasValue(10);
    }

    @Test
    void accepts_onlyEntriesYoungerThanMaxAge() {
        CacheControl tenSeconds = CacheControl.parse("max-age=10");
        assertThat(tenSeconds.accepts(9_999)).isTrue();
        assertThat(tenSeconds.accepts(10_000)).isFalse();
        assertThat(CacheControl.parse("max-age=0").accepts(0)).isFalse();
        assertThat(CacheControl.NONE.accepts(Long.MAX_VALUE)).isTrue();
    }

    @Test
    void parse_staleDirectives_valuesAndTheSmallestOfSeveral() {
        CacheControl both = CacheControl.parse("Max-Stale=30, stale-if-error=\"120\", stale-if-error=60");
        assertThat(both.maxStaleSeconds()).hasValue(30);
        assertThat(both.staleIfErrorSeconds()).hasValue(60);
        assertThat(CacheControl.parse("max-stale").maxStaleSeconds()).as("any staleness").hasValue(2_147_483_648L);
        assertThat(CacheControl.parse("max-stale, max-stale=5").maxStaleSeconds()).hasValue(5);
    }

    @Test
    void staleIfErrorMillis_noDirective_thePolicysWindow() {
        assertThat(CacheControl.NONE.staleIfErrorMillis(600_000)).isEqualTo(600_000);
        assertThat(CacheControl.NONE.staleIfErrorMillis(0)).isZero();
        assertThat(CacheControl.parse("no-transform").staleIfErrorMillis(600_000)).isEqualTo(600_000);
    }

    @Test
    void staleIfErrorMillis_clientDirective_narrowsButNeverWidensThePolicy() {
        assertThat(CacheControl.parse("stale-if-error=60").staleIfErrorMillis(600_000)).isEqualTo(60_000);
        assertThat(CacheControl.parse("stale-if-error=86400").staleIfErrorMillis(600_000)).isEqualTo(600_000);
        assertThat(CacheControl.parse("max-stale=60").staleIfErrorMillis(600_000)).isEqualTo(60_000);
        assertThat(CacheControl.parse("max-stale").staleIfErrorMillis(600_000)).isEqualTo(600_000);
        assertThat(CacheControl.parse("stale-if-error=0").staleIfErrorMillis(600_000)).isZero();
        assertThat(CacheControl.parse("stale-if-error=60").staleIfErrorMillis(0)).as("the policy's off").isZero();
    }

    @Test
    void staleIfErrorMillis_staleIfErrorIsTheMoreSpecific_overMaxStale() {
        assertThat(CacheControl.parse("max-stale=10, stale-if-error=300").staleIfErrorMillis(600_000))
                .isEqualTo(300_000);
        assertThat(CacheControl.parse("max-stale=300, stale-if-error=10").staleIfErrorMillis(600_000))
                .isEqualTo(10_000);
    }

    @Test
    void staleIfErrorMillis_maxAge_noStaleUnlessAStaleDirectiveSaysSo() {
        // RFC 9111 5.2.1.1: max-age bounds the age the client accepts unless max-stale is present too.
        assertThat(CacheControl.parse("max-age=60").staleIfErrorMillis(600_000)).isZero();
        assertThat(CacheControl.parse("max-age=60, max-stale=120").staleIfErrorMillis(600_000)).isEqualTo(120_000);
        assertThat(CacheControl.parse("max-age=60, stale-if-error=30").staleIfErrorMillis(600_000)).isEqualTo(30_000);
    }

    @Test
    void staleWhileRevalidateMillis_clientDirective_narrowsButNeverWidensThePolicy() {
        assertThat(CacheControl.NONE.staleWhileRevalidateMillis(60_000)).isEqualTo(60_000);
        assertThat(CacheControl.parse("stale-while-revalidate=10").staleWhileRevalidateMillis(60_000))
                .isEqualTo(10_000);
        assertThat(CacheControl.parse("stale-while-revalidate=3600").staleWhileRevalidateMillis(60_000))
                .isEqualTo(60_000);
        assertThat(CacheControl.parse("stale-while-revalidate=0").staleWhileRevalidateMillis(60_000)).isZero();
        assertThat(CacheControl.parse("stale-while-revalidate=5, stale-while-revalidate=20")
                .staleWhileRevalidateMillis(60_000)).as("the smallest of several").isEqualTo(5_000);
        assertThat(CacheControl.parse("max-stale=20").staleWhileRevalidateMillis(60_000)).isEqualTo(20_000);
        assertThat(CacheControl.parse("max-age=60").staleWhileRevalidateMillis(60_000)).isZero();
        assertThat(CacheControl.parse("stale-while-revalidate=30").staleWhileRevalidateMillis(0))
                .as("the policy's off").isZero();
        // Each window is narrowed by its own directive only.
        CacheControl both = CacheControl.parse("stale-if-error=100, stale-while-revalidate=7");
        assertThat(both.staleIfErrorMillis(600_000)).isEqualTo(100_000);
        assertThat(both.staleWhileRevalidateMillis(600_000)).isEqualTo(7_000);
    }
}
