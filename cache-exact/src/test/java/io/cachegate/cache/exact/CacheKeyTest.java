package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CacheKeyTest {

    private static final String DIGEST = "0123456789abcdef".repeat(4);

    @Test
    void fromRedisKey_roundTripsEscapedTenantsAndVersions() {
        for (CacheKey key : List.of(new CacheKey("acme", "llama-3@v7", DIGEST),
                new CacheKey("a:b}{c", "m:1 *?[x]%", DIGEST), new CacheKey(CacheKey.SHARED_TENANT, "é", DIGEST),
                new CacheKey("", "", DIGEST))) {
            assertThat(CacheKey.fromRedisKey(key.redisKey())).contains(key);
        }
    }

    @Test
    void fromRedisKey_rejectsWhatRedisKeyNeverProduces() {
        assertThat(CacheKey.fromRedisKey(null)).isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v0:{acme}:m:" + DIGEST)).as("another schema").isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v1:{acme}:m:" + DIGEST.substring(1))).as("short digest").isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v1:{acme}:m:" + DIGEST.toUpperCase())).as("upper-case hex").isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v1:{ac%6De}:m:" + DIGEST)).as("a needless escape").isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v1:{acme%4}:m:" + DIGEST)).as("a cut escape").isEmpty();
        assertThat(CacheKey.fromRedisKey("cg:v1:{acme}m:" + DIGEST)).isEmpty();
    }
}
