package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreshnessTest {

    private static final long CREATED = 1_700_000_000_000L;
    /** Written with a 10s TTL and kept past it to answer stale. */
    private static final CacheEntry ENTRY = new CacheEntry("{}".getBytes(StandardCharsets.UTF_8), CREATED, "m@1",
            "req-1", 1, 2, Set.of()).freshFor(10_000);

    @Test
    void of_withinTtl_fresh() {
        assertThat(Freshness.of(ENTRY, CREATED, 5_000)).isEqualTo(Freshness.FRESH);
        assertThat(Freshness.of(ENTRY, CREATED + 9_999, 0)).isEqualTo(Freshness.FRESH);
        assertThat(Freshness.pastTtlMillis(ENTRY, CREATED + 9_999)).isZero();
    }

    @Test
    void of_pastTtlWithinWindow_stale() {
        // TTL ends at +10s; a 5s window ends at +15s (exclusive).
        assertThat(Freshness.of(ENTRY, CREATED + 10_000, 5_000)).isEqualTo(Freshness.STALE);
        assertThat(Freshness.of(ENTRY, CREATED + 14_999, 5_000)).isEqualTo(Freshness.STALE);
        assertThat(Freshness.pastTtlMillis(ENTRY, CREATED + 14_999)).isEqualTo(4_999);
    }

    @Test
    void of_pastWindow_expired() {
        assertThat(Freshness.of(ENTRY, CREATED + 15_000, 5_000)).isEqualTo(Freshness.EXPIRED);
    }

    @Test
    void of_readerWithoutWindow_pastTtlIsExpired() {
        // A reload that turned stale_if_error off: entries still in the store are not served past their TTL.
        assertThat(Freshness.of(ENTRY, CREATED + 10_000, 0)).isEqualTo(Freshness.EXPIRED);
    }

    @Test
    void of_readerWindowNarrowerThanTheWriters_readersCounts() {
        assertThat(Freshness.of(ENTRY, CREATED + 12_000, 1_000)).isEqualTo(Freshness.EXPIRED);
        assertThat(Freshness.of(ENTRY, CREATED + 10_500, 1_000)).isEqualTo(Freshness.STALE);
    }

    @Test
    void of_entryKeptOnlyWhileFresh_alwaysFresh() {
        // Written without a stale window: the store drops it at its TTL, so whatever it returns is fresh.
        CacheEntry plain = new CacheEntry(new byte[0], CREATED, "m@1", "req-1", 0, 0, Set.of());
        assertThat(plain.freshForMillis()).isZero();
        assertThat(Freshness.of(plain, CREATED + 3_600_000, 60_000)).isEqualTo(Freshness.FRESH);
    }
}
