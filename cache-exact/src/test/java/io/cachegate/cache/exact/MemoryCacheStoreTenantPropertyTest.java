package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Random puts and gets under random tenants: whatever the store returns was written by the same
 * tenant for the same model version and digest. Digests are drawn from a small pool so different
 * tenants often share one, which is where a tenant-blind key would leak.
 */
class MemoryCacheStoreTenantPropertyTest {

    @RepeatedTest(20)
    void get_randomTraffic_neverReturnsAnotherTenantsEntry(RepetitionInfo repetition) {
        Random random = new Random(repetition.getCurrentRepetition() * 7919L);
        FakeTicker ticker = new FakeTicker();
        MemoryCacheStore store = new MemoryCacheStore(2 << 20, ticker);
        List<String> tenants = List.of("acme", "globex", "initech", CacheKey.SHARED_TENANT, "a", "acme ");
        List<String> models = List.of("m@1", "m@2");
        List<String> digests = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            byte[] d = new byte[32];
            random.nextBytes(d);
            digests.add(HexFormat.of().formatHex(d));
        }
        int hits = 0;
        for (int op = 0; op < 2000; op++) {
            CacheKey key = new CacheKey(tenants.get(random.nextInt(tenants.size())),
                    models.get(random.nextInt(models.size())), digests.get(random.nextInt(digests.size())));
            switch (random.nextInt(10)) {
                case 0, 1, 2, 3 -> store.put(key, entryFor(key, op), Duration.ofSeconds(1 + random.nextInt(30)));
                case 4 -> ticker.advance(Duration.ofSeconds(random.nextInt(5)));
                case 5 -> store.purge(new PurgeScope(false, Optional.of(key.tenant()), Optional.empty(), Optional.empty()));
                default -> {
                    Optional<CacheEntry> found = store.get(key).join();
                    if (found.isPresent()) {
                        hits++;
                        String body = new String(found.get().body(), StandardCharsets.UTF_8);
                        assertThat(body).startsWith(key.tenant() + "|" + key.modelVersion() + "|" + key.digest() + "|");
                        assertThat(found.get().tags()).containsExactly("tenant:" + key.tenant());
                    }
                }
            }
        }
        assertThat(hits).as("the property was exercised").isPositive();
    }

    private static CacheEntry entryFor(CacheKey key, int op) {
        String body = key.tenant() + "|" + key.modelVersion() + "|" + key.digest() + "|" + op;
        return new CacheEntry(body.getBytes(StandardCharsets.UTF_8), op, key.modelVersion(), "r" + op, 1, 1,
                Set.of("tenant:" + key.tenant()));
    }
}
