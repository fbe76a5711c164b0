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
        assertThat(CacheControl.parse("private, max-stale=5, only-if-cached")).isEqualTo(CacheControl.NONE);
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
}
