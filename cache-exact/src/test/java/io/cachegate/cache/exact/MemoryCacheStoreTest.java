package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MemoryCacheStoreTest {

    private final FakeTicker ticker = new FakeTicker();
    private final MemoryCacheStore store = new MemoryCacheStore(1 << 20, ticker);

    @Test
    void get_afterPut_returnsEntry() {
        CacheKey key = key("acme", "m@1");
        store.put(key, entry("hello"), Duration.ofMinutes(1));
        assertThat(store.get(key)).isCompleted();
        assertThat(store.get(key).join().map(TestEntries::body)).contains("hello");
        assertThat(store.get(key("acme", "m@1")).join()).isEmpty();
    }

    @Test
    void get_afterTtl_isEmpty_perEntry() {
        CacheKey shortLived = key("acme", "m@1");
        CacheKey longLived = key("acme", "m@1");
        store.put(shortLived, entry("a"), Duration.ofSeconds(10));
        store.put(longLived, entry("b"), Duration.ofMinutes(10));
        ticker.advance(Duration.ofSeconds(9));
        assertThat(store.get(shortLived).join()).isPresent();
        assertThat(store.getWithTtl(shortLived).join().orElseThrow().remaining()).isEqualTo(Duration.ofSeconds(1));
        ticker.advance(Duration.ofSeconds(2));
        assertThat(store.get(shortLived).join()).isEmpty();
        assertThat(store.get(longLived).join()).isPresent();
    }

    @Test
    void put_overwrite_resetsTtl() {
        CacheKey key = key("acme", "m@1");
        store.put(key, entry("old"), Duration.ofSeconds(5));
        ticker.advance(Duration.ofSeconds(4));
        store.put(key, entry("new"), Duration.ofSeconds(5));
        ticker.advance(Duration.ofSeconds(4));
        assertThat(store.get(key).join().map(TestEntries::body)).contains("new");
    }

    @Test
    void put_beyondMaxBytes_evictsByWeightNotCount() {
        MemoryCacheStore small = new MemoryCacheStore(100_000, ticker);
        String tenKb = "x".repeat(10_000);
        for (int i = 0; i < 50; i++) {
            small.put(key("acme", "m@1"), entry(tenKb), Duration.ofMinutes(1));
        }
        assertThat(small.weightedBytes()).isLessThanOrEqualTo(100_000);
        assertThat(small.size()).isBetween(5L, 10L);
        for (int i = 0; i < 50; i++) {
            small.put(key("acme", "m@1"), entry("tiny"), Duration.ofMinutes(1));
        }
        assertThat(small.size()).as("small entries: many fit").isGreaterThan(40);
    }

    @Test
    void put_nonPositiveTtl_rejected() {
        assertThatThrownBy(() -> store.put(key("a", "m"), entry("x"), Duration.ZERO)).hasMessageContaining("ttl");
    }

    @Test
    void purge_byTenantModelVersionTagAndAll() {
        CacheKey a1 = key("a", "m@1");
        CacheKey a2 = key("a", "m@2");
        CacheKey b1 = key("b", "m@1");
        CacheKey b2 = key("b", "m@2");
        Duration ttl = Duration.ofMinutes(1);
        store.put(a1, entry("a1", "doc:1"), ttl);
        store.put(a2, entry("a2", "doc:2"), ttl);
        store.put(b1, entry("b1", "doc:1"), ttl);
        store.put(b2, entry("b2", "doc:1", "doc:2"), ttl);

        assertThat(store.purge(scope(null, null, "doc:2")).join()).isEqualTo(2);
        assertThat(present(a1, a2, b1, b2)).containsExactly(true, false, true, false);
        assertThat(store.purge(scope("b", "m@1", null)).join()).isEqualTo(1);
        assertThat(present(a1, b1)).containsExactly(true, false);
        store.put(b1, entry("b1"), ttl);
        assertThat(store.purge(scope(null, "m@1", "doc:1")).join()).as("b1 lost its tag").isEqualTo(1);
        assertThat(present(a1, b1)).containsExactly(false, true);
        assertThat(store.purge(scope("a", null, null)).join()).isZero();
        assertThat(store.purge(PurgeScope.everything()).join()).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    @Test
    void purge_byUser_removesThatUsersEntriesOnly_alsoWithinATenant() {
        String alice = UserDigest.of("alice");
        CacheKey a1 = key("a", "m@1");
        CacheKey a2 = key("a", "m@2");
        CacheKey b1 = key("b", "m@1");
        CacheKey bob = key("a", "m@1");
        CacheKey nobody = key("a", "m@1");
        Duration ttl = Duration.ofMinutes(1);
        store.put(a1, forUser("a1", alice), ttl);
        store.put(a2, forUser("a2", alice), ttl);
        store.put(b1, forUser("b1", alice), ttl);
        store.put(bob, forUser("bob", UserDigest.of("bob")), ttl);
        store.put(nobody, entry("nobody"), ttl);

        PurgeScope aliceInA = new PurgeScope(false, Optional.of("a"), Optional.empty(), Optional.empty(),
                Optional.of(alice));
        assertThat(store.purge(aliceInA).join()).isEqualTo(2);
        assertThat(present(a1, a2, b1, bob, nobody)).containsExactly(false, false, true, true, true);
        assertThat(store.purge(PurgeScope.user(alice)).join()).isEqualTo(1);
        assertThat(present(b1, bob, nobody)).containsExactly(false, true, true);
    }

    static CacheEntry forUser(String body, String userDigest) {
        return new CacheEntry(body.getBytes(java.nio.charset.StandardCharsets.UTF_8), 1, "m@1", "r", 0, 0, Set.of(),
                Set.of(), userDigest);
    }

    private boolean[] present(CacheKey... keys) {
        boolean[] out = new boolean[keys.length];
        for (int i = 0; i < keys.length; i++) {
            out[i] = store.get(keys[i]).join().isPresent();
        }
        return out;
    }

    static PurgeScope scope(String tenant, String modelVersion, String tag) {
        return new PurgeScope(false, Optional.ofNullable(tenant), Optional.ofNullable(modelVersion), Optional.ofNullable(tag));
    }
}
