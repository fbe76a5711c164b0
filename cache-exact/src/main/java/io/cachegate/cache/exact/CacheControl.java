package io.cachegate.cache.exact;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The client's {@code Cache-Control} request directives the cache honours: {@code no-store} (neither
 * read nor write), {@code no-cache} (don't read, do write) and {@code max-age=N} (read only entries
 * younger than N seconds). Unknown directives and malformed values are ignored, never an error.
 */
public record CacheControl(boolean noStore, boolean noCache, OptionalLong maxAgeSeconds) {

    /** No header: read and write as the route allows. */
    public static final CacheControl NONE = new CacheControl(false, false, OptionalLong.empty());
    /** RFC 9111 §1.2.2: a delta-seconds too large to represent counts as 2^31. */
    private static final long MAX_DELTA_SECONDS = 2_147_483_648L;

    /**
     * Parses a header value; several {@code Cache-Control} headers are passed joined with commas.
     * Names are case-insensitive; with several {@code max-age} the smallest wins (the strictest).
     */
    public static CacheControl parse(String headerValue) {
        if (headerValue == null || headerValue.isBlank()) {
            return NONE;
        }
        boolean noStore = false;
        boolean noCache = false;
        long maxAge = -1;
        for (String directive : split(headerValue)) {
            int eq = directive.indexOf('=');
            String name = (eq < 0 ? directive : directive.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
            switch (name) {
                case "no-store" -> noStore = true;
                case "no-cache" -> noCache = true;
                case "max-age" -> {
                    long seconds = eq < 0 ? -1 : deltaSeconds(directive.substring(eq + 1));
                    if (seconds >= 0) {
                        maxAge = maxAge < 0 ? seconds : Math.min(maxAge, seconds);
                    }
                }
                default -> {
                    // Unknown or irrelevant to a request (max-stale, only-if-cached, ...): ignored.
                }
            }
        }
        return new CacheControl(noStore, noCache, maxAge < 0 ? OptionalLong.empty() : OptionalLong.of(maxAge));
    }

    /** True when an entry {@code ageMillis} old may be served under this header's {@code max-age}. */
    public boolean accepts(long ageMillis) {
        return maxAgeSeconds.isEmpty() || ageMillis < maxAgeSeconds.getAsLong() * 1000;
    }

    /** Splits on commas outside double quotes, dropping empty parts. */
    private static List<String> split(String value) {
        List<String> parts = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i <= value.length(); i++) {
            char c = i < value.length() ? value.charAt(i) : ',';
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && (!quoted || i == value.length())) {
                String part = value.substring(start, i).strip();
                if (!part.isEmpty()) {
                    parts.add(part);
                }
                start = i + 1;
                quoted = false;
            }
        }
        return parts;
    }

    /** Digits only (quotes tolerated, as RFC 9111 asks of recipients); -1 when malformed. */
    private static long deltaSeconds(String raw) {
        String text = raw.strip();
        if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
            text = text.substring(1, text.length() - 1).strip();
        }
        if (text.isEmpty()) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = Math.min(MAX_DELTA_SECONDS, value * 10 + (c - '0'));
        }
        return value;
    }
}
