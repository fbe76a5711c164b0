package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The Redis key space: entries under {@code cg:v1:{tenant}:modelVersion:digest} (see
 * {@link CacheKey#redisKey()}), one set per tag under {@code cg:v1:tag:<escaped tag>}, one per end user under
 * {@code cg:v1:user:<digest>}, and the SCAN
 * patterns of a purge. Patterns are a coarse filter; {@link #inScope} decides exactly.
 */
final class RedisKeys {

    static final String PREFIX = "cg:" + CacheKey.SCHEMA + ":";
    static final String ENTRY_PREFIX = PREFIX + "{";
    static final String TAG_PREFIX = PREFIX + "tag:";
    static final String USER_PREFIX = PREFIX + "user:";
    private static final int DIGEST = 64;

    private RedisKeys() {
    }

    /**
     * The set of keys stored with {@code tag}. The tag is percent-escaped so it cannot form a glob, a
     * Cluster hash tag (braces) or an entry key.
     */
    static String tagKey(String tag) {
        StringBuilder out = new StringBuilder(TAG_PREFIX.length() + tag.length());
        out.append(TAG_PREFIX);
        for (byte b : tag.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '@' || c == '=' || c == '+') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** The set of keys written for the end user whose {@link UserDigest} is {@code digest} (hex: nothing to escape). */
    static String userKey(String digest) {
        return USER_PREFIX + CacheKey.redisSafe(digest);
    }

    /** The SCAN MATCH pattern that covers {@code scope} when it has no tag (a tag purge reads the tag's set). */
    static String scanPattern(PurgeScope scope) {
        if (scope.all()) {
            return PREFIX + "*";
        }
        // redisSafe leaves no glob character, separator or brace; glob() is a second guard.
        String tenant = scope.tenant().map(t -> glob(CacheKey.redisSafe(t))).orElse("*");
        String model = scope.modelVersion().map(m -> glob(CacheKey.redisSafe(m))).orElse("*");
        return ENTRY_PREFIX + tenant + "}:" + model + ":*";
    }

    static boolean isEntryKey(String key) {
        return parse(key).isPresent();
    }

    /** True when {@code key} is an entry key of the scope's tenant and model version (tags not checked). */
    static boolean inScope(PurgeScope scope, String key) {
        Optional<String[]> parts = parse(key);
        if (parts.isEmpty()) {
            return false;
        }
        return scope.all()
                || (scope.tenant().map(t -> CacheKey.redisSafe(t).equals(parts.get()[0])).orElse(true)
                        && scope.modelVersion().map(m -> CacheKey.redisSafe(m).equals(parts.get()[1])).orElse(true));
    }

    /** {tenant, modelVersion} of an entry key, as escaped in the key; empty for tag sets and anything else. */
    static Optional<String[]> parse(String key) {
        int digestStart = key.length() - DIGEST;
        if (!key.startsWith(ENTRY_PREFIX) || digestStart < ENTRY_PREFIX.length() + 3 || key.charAt(digestStart - 1) != ':') {
            return Optional.empty();
        }
        int close = key.indexOf("}:", ENTRY_PREFIX.length());
        if (close < 0 || close + 2 > digestStart - 1) {
            return Optional.empty();
        }
        return Optional.of(new String[] {key.substring(ENTRY_PREFIX.length(), close), key.substring(close + 2, digestStart - 1)});
    }

    /** {@code literal} with Redis glob characters escaped. */
    static String glob(String literal) {
        StringBuilder out = new StringBuilder(literal.length() + 4);
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || c == '^') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}
