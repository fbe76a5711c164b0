package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ExactKeyFactoryTest {

    private final ExactKeyFactory keys = new ExactKeyFactory();
    private static final byte[] REQ = "[\"chat\",{}]".getBytes(StandardCharsets.UTF_8);

    @Test
    void key_isSha256OverLengthPrefixedFields() throws Exception {
        CacheKey key = keys.key("acme", "llama@1", "none", REQ);

        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (byte[] field : new byte[][] {"v1".getBytes(StandardCharsets.UTF_8), "acme".getBytes(StandardCharsets.UTF_8),
                "llama@1".getBytes(StandardCharsets.UTF_8), "none".getBytes(StandardCharsets.UTF_8), REQ}) {
            sha.update(new byte[] {0, 0, 0, (byte) field.length});
            sha.update(field);
        }
        assertThat(key.digest()).isEqualTo(HexFormat.of().formatHex(sha.digest())).matches("[0-9a-f]{64}");
        assertThat(key.tenant()).isEqualTo("acme");
        assertThat(key.modelVersion()).isEqualTo("llama@1");
    }

    @Test
    void key_sameTuple_sameKey() {
        assertThat(keys.key("acme", "v", "none", REQ)).isEqualTo(keys.key("acme", "v", "none", REQ.clone()));
    }

    @Test
    void key_shiftedFieldBoundaries_differ() {
        assertThat(keys.key("ab", "c", "none", REQ).digest()).isNotEqualTo(keys.key("a", "bc", "none", REQ).digest());
        assertThat(keys.key("a", "b", "c" + "none", REQ).digest()).isNotEqualTo(keys.key("a", "bc", "none", REQ).digest());
    }

    @Test
    void key_eachField_changesTheDigest() {
        String base = keys.key("acme", "v1", "none", REQ).digest();
        assertThat(keys.key("globex", "v1", "none", REQ).digest()).isNotEqualTo(base);
        assertThat(keys.key("acme", "v2", "none", REQ).digest()).isNotEqualTo(base);
        assertThat(keys.key("acme", "v1", ContextHash.of(java.util.Optional.of("kb-1"), java.util.Optional.empty()), REQ)
                .digest()).isNotEqualTo(base);
        assertThat(keys.key("acme", "v1", "none", "[\"chat\",{\"a\":1}]".getBytes(StandardCharsets.UTF_8)).digest())
                .isNotEqualTo(base);
    }

    @Test
    void key_emptyFields_areRejected() {
        assertThatThrownBy(() -> keys.key("", "v", "none", REQ)).hasMessage("tenant must not be empty");
        assertThatThrownBy(() -> keys.key("t", null, "none", REQ)).hasMessage("modelVersion must not be empty");
        assertThatThrownBy(() -> keys.key("t", "v", "", REQ)).hasMessage("contextHash must not be empty");
        assertThatThrownBy(() -> keys.key("t", "v", "none", new byte[0])).hasMessage("canonical must not be empty");
    }

    @Test
    void redisKey_escapesSeparatorsHashTagsAndPatterns() {
        CacheKey key = keys.key("a}:*{b", "llama3:8b [q4]?", "none", REQ);

        assertThat(key.redisKey()).isEqualTo("cg:v1:{a%7D%3A%2A%7Bb}:llama3%3A8b%20%5Bq4%5D%3F:" + key.digest());
        assertThat(key.tenant()).as("kept in clear for purge by scope").isEqualTo("a}:*{b");
    }

    @Test
    void redisSafe_isOneToOne() {
        assertThat(CacheKey.redisSafe("a:b")).isEqualTo("a%3Ab");
        assertThat(CacheKey.redisSafe("a%3Ab")).isEqualTo("a%253Ab");
        assertThat(CacheKey.redisSafe("plain-tenant_1.x@2024/07")).isEqualTo("plain-tenant_1.x@2024/07");
        assertThat(CacheKey.redisSafe("\\\n\u007f")).isEqualTo("%5C%0A%7F");
        assertThat(CacheKey.redisSafe("\u00e9")).isEqualTo("\u00e9");
    }

    @Test
    void redisKey_tenantCannotReachIntoAnotherTenantsNamespace() {
        // Unescaped, tenant "a}:v:" would put its keys under the pattern cg:v1:{a}:* of tenant "a".
        CacheKey forged = keys.key("a}:v", "x", "none", REQ);
        assertThat(forged.redisKey()).doesNotStartWith("cg:v1:{a}:");
    }
}
