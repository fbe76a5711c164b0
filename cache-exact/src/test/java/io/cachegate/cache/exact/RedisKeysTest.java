package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.MemoryCacheStoreTest.scope;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisKeysTest {

    private static final String DIGEST = "ab".repeat(32);

    @Test
    void tagKey_escapesGlobBracesAndSpaces() {
        assertThat(RedisKeys.tagKey("doc:42")).isEqualTo("cg:v1:tag:doc:42");
        assertThat(RedisKeys.tagKey("a b*{x}?%")).isEqualTo("cg:v1:tag:a%20b%2A%7Bx%7D%3F%25");
        assertThat(RedisKeys.tagKey("é")).isEqualTo("cg:v1:tag:%C3%A9");
        assertThat(RedisKeys.isEntryKey(RedisKeys.tagKey("{t}:m:" + DIGEST))).isFalse();
    }

    @Test
    void scanPattern_perScope_escapesGlobs() {
        assertThat(RedisKeys.scanPattern(PurgeScope.everything())).isEqualTo("cg:v1:*");
        assertThat(RedisKeys.scanPattern(scope("acme", null, null))).isEqualTo("cg:v1:{acme}:*:*");
        assertThat(RedisKeys.scanPattern(scope(null, "m@1", null))).isEqualTo("cg:v1:{*}:m@1:*");
        assertThat(RedisKeys.scanPattern(scope("a*", "m[1]:x", null))).isEqualTo("cg:v1:{a%2A}:m%5B1%5D%3Ax:*");
    }

    @Test
    void inScope_exactTenantAndModel() {
        String key = new CacheKey("acme", "llama:3@v7", DIGEST).redisKey();
        assertThat(RedisKeys.parse(key).orElseThrow()).containsExactly("acme", "llama%3A3@v7");
        assertThat(RedisKeys.inScope(scope("acme", null, null), key)).isTrue();
        assertThat(RedisKeys.inScope(scope("acm", null, null), key)).isFalse();
        assertThat(RedisKeys.inScope(scope(null, "llama:3@v7", null), key)).isTrue();
        assertThat(RedisKeys.inScope(scope(null, "3@v7", null), key)).isFalse();
        assertThat(RedisKeys.inScope(scope("acme", "llama:3@v7", null), key)).isTrue();
        assertThat(RedisKeys.inScope(PurgeScope.everything(), "cg:v1:tag:x")).isFalse();
        assertThat(RedisKeys.parse("cg:v1:{acme}:" + DIGEST)).isEmpty();
        assertThat(RedisKeys.glob("a*b?[c]\\")).isEqualTo("a\\*b\\?\\[c\\]\\\\");
    }
}
