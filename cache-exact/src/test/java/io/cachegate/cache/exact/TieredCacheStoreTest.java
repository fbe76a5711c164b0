package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TieredCacheStoreTest {

    private final FakeTicker ticker = new FakeTicker();
    private final MemoryCacheStore l1 = new MemoryCacheStore(1 << 20, ticker);
    private final MemoryCacheStore l2 = new MemoryCacheStore(1 << 20, ticker);
    private final TieredCacheStore tiered = new TieredCacheStore(l1, Duration.ofSeconds(5), l2);

    @Test
    void get_l2Hit_fillsL1ForAtMostL1TtlAndRemaining() {
        CacheKey longLived = key("a", "m");
        CacheKey shortLived = key("a", "m");
        l2.put(longLived, entry("long"), Duration.ofMinutes(1));
        l2.put(shortLived, entry("short"), Duration.ofSeconds(2));
        assertThat(tiered.get(longLived).join()).isPresent();
        assertThat(tiered.get(shortLived).join()).isPresent();
        assertThat(l1.getWithTtl(longLived).join().orElseThrow().remaining()).isEqualTo(Duration.ofSeconds(5));
        assertThat(l1.getWithTtl(shortLived).join().orElseThrow().remaining()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void get_purgedElsewhere_seenWithinL1Ttl() {
        CacheKey key = key("a", "m");
        tiered.put(key, entry("x"), Duration.ofMinutes(1));
        l2.purge(PurgeScope.everything()); // what another gateway's purge does to the shared L2
        assertThat(tiered.get(key).join()).as("the L1 copy still serves").isPresent();
        ticker.advance(Duration.ofSeconds(5));
        assertThat(tiered.get(key).join()).isEmpty();
    }

    @Test
    void purge_clearsBothTiers_countsL2() {
        CacheKey key = key("a", "m");
        tiered.put(key, entry("x", "doc:1"), Duration.ofMinutes(1));
        assertThat(l1.get(key).join()).isPresent();
        assertThat(tiered.purge(MemoryCacheStoreTest.scope(null, null, "doc:1")).join()).isEqualTo(1);
        assertThat(l1.get(key).join()).isEmpty();
        assertThat(l2.get(key).join()).isEmpty();
    }

    @Test
    void purge_byUser_clearsBothTiers_countsL2() {
        CacheKey alice = key("a", "m");
        CacheKey bob = key("a", "m");
        tiered.put(alice, MemoryCacheStoreTest.forUser("x", UserDigest.of("alice")), Duration.ofMinutes(1));
        tiered.put(bob, MemoryCacheStoreTest.forUser("y", UserDigest.of("bob")), Duration.ofMinutes(1));
        assertThat(tiered.purge(PurgeScope.user(UserDigest.of("alice"))).join()).isEqualTo(1);
        assertThat(l1.get(alice).join()).isEmpty();
        assertThat(l2.get(alice).join()).isEmpty();
        assertThat(tiered.get(bob).join()).isPresent();
    }

    @Test
    void put_shortTtl_l1NeverOutlivesEntry() {
        CacheKey key = key("a", "m");
        tiered.put(key, entry("x"), Duration.ofSeconds(1));
        ticker.advance(Duration.ofMillis(1001));
        assertThat(tiered.get(key).join()).isEmpty();
    }
}
