package io.cachegate.cache.exact;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The client's {@code Cache-Control} request directives the cache honours: {@code no-store} (neither
 * read nor write), {@code no-cache} (don't read, do write), {@code max-age=N} (read only entries
 * younger than N seconds), and {@code stale-if-error=N} (RFC 5861) or {@code max-stale[=N]} (RFC 9111): how far
 * past its TTL an entry may answer when the backend cannot, never further than the route's {@code stale_if_error};
 * {@code stale-while-revalidate=N} (RFC 5861) narrows the route's {@code stale_while_revalidate} the same way.
 * Unknown directives and malformed values are ignored, never an error.
 *
 * @param maxStaleSeconds {@code max-stale}: 2^31 when it came without a value (any staleness)
 */
public record CacheControl(boolean noStore, boolean noCache, OptionalLong maxAgeSeconds, OptionalLong maxStaleSeconds,
                           OptionalLong staleIfErrorSeconds, OptionalLong staleWhileRevalidateSeconds) {

    /** No header: read and write as the route allows. */
    public static final CacheControl NONE = new CacheControl(false, false, OptionalLong.empty());
    /** RFC 9111 §1.2.2: a delta-seconds too large to represent counts as 2^31. */
    static final long MAX_DELTA_SECONDS = 2_147_483_648L;

    /** Without stale directives. */
    public CacheControl(boolean noStore, boolean noCache, OptionalLong maxAgeSeconds) {
        this(noStore, noCache, maxAgeSeconds, OptionalLong.empty(), OptionalLong.empty());
    }

    /** Without {@code stale-while-revalidate}. */
    public CacheControl(boolean noStore, boolean noCache, OptionalLong maxAgeSeconds, OptionalLong maxStaleSeconds,
                        OptionalLong staleIfErrorSeconds) {
        this(noStore, noCache, maxAgeSeconds, maxStaleSeconds, staleIfErrorSeconds, OptionalLong.empty());
    }

    /**
     * Parses a header value; several {@code Cache-Control} headers are passed joined with commas.
     * Names are case-insensitive; with several {@code max-age}, {@code max-stale}, {@code stale-if-error} or {@code
     * stale-while-revalidate} the smallest wins (the strictest).
     */
    public static CacheControl parse(String headerValue) {
        if (headerValue == null || headerValue.isBlank()) {
            return NONE;
        }
        boolean noStore = false;
        boolean noCache = false;
        long maxAge = -1;
        long maxStale = -1;
        long staleIfError = -1;
        long staleWhileRevalidate = -1;
        for (String directive : split(headerValue)) {
            int eq = directive.indexOf('=');
            String name = (eq < 0 ? directive : directive.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
            switch (name) {
                case "no-store" -> noStore = true;
                case "no-cache" -> noCache = true;
                case "max-age" -> maxAge = smallest(maxAge, eq < 0 ? -1 : deltaSeconds(directive.substring(eq + 1)));
                // Without a value: any staleness the policy allows.
                case "max-stale" -> maxStale = smallest(maxStale,
                        eq < 0 ? MAX_DELTA_SECONDS : deltaSeconds(directive.substring(eq + 1)));
                case "stale-if-error" -> staleIfError = smallest(staleIfError,
                        eq < 0 ? -1 : deltaSeconds(directive.substring(eq + 1)));
                case "stale-while-revalidate" -> staleWhileRevalidate = smallest(staleWhileRevalidate,
                        eq < 0 ? -1 : deltaSeconds(directive.substring(eq + 1)));
                default -> {
                    // Unknown or irrelevant to a request (only-if-cached, min-fresh, ...): ignored.
                }
            }
        }
        return new CacheControl(noStore, noCache, optional(maxAge), optional(maxStale), optional(staleIfError),
                optional(staleWhileRevalidate));
    }

    /**
     * How long past its TTL an entry may answer this request when the backend cannot, given the route's {@code
     * stale_if_error} ({@code policyMillis}): the client's {@code stale-if-error}, else its {@code max-stale}, never
     * longer than the policy's; with neither, the policy's, unless the client bounded the age it accepts with {@code
     * max-age} (RFC 9111: then no stale answer).
     */
    public long staleIfErrorMillis(long policyMillis) {
        return narrowed(staleIfErrorSeconds, policyMillis);
    }

    /**
     * How long past its TTL an entry may answer this request at once while one background call refreshes it, given
     * the route's {@code stale_while_revalidate} ({@code policyMillis}): as {@link #staleIfErrorMillis}, with the
     * client's {@code stale-while-revalidate} in place of its {@code stale-if-error}.
     */
    public long staleWhileRevalidateMillis(long policyMillis) {
        return narrowed(staleWhileRevalidateSeconds, policyMillis);
    }

    /** The policy's window narrowed by the client's own directive, else by its {@code max-stale}; never widened. */
    private long narrowed(OptionalLong directive, long policyMillis) {
        OptionalLong client = directive.isPresent() ? directive : maxStaleSeconds;
        if (client.isPresent()) {
            return Math.min(policyMillis, client.getAsLong() * 1000);
        }
        return maxAgeSeconds.isPresent() ? 0 : policyMillis;
    }

    /** The smaller of two delta-seconds, -1 standing for none (a malformed value is none too). */
    private static long smallest(long current, long seconds) {
        if (seconds < 0) {
            return current;
        }
        return current < 0 ? seconds : Math.min(current, seconds);
    }

    private static OptionalLong optional(long seconds) {
        return seconds < 0 ? OptionalLong.empty() : OptionalLong.of(seconds);
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
