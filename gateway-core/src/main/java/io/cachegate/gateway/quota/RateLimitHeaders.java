package io.cachegate.gateway.quota;

import io.cachegate.gateway.exchange.Exchange;
import io.github.bucket4j.ConsumptionProbe;
import io.netty.util.AsciiString;
import java.util.function.BiConsumer;

/**
 * OpenAI's rate-limit headers: {@code x-ratelimit-limit-*} (the bucket's size), {@code -remaining-*} (what is
 * left after this request) and {@code -reset-*} (until the bucket is full again), for requests and tokens, with
 * the reset written as OpenAI does ({@code 1s}, {@code 6m0s}, {@code 120ms}: Go's duration format).
 */
final class RateLimitHeaders {

    static final AsciiString LIMIT_REQUESTS = AsciiString.cached("x-ratelimit-limit-requests");
    static final AsciiString REMAINING_REQUESTS = AsciiString.cached("x-ratelimit-remaining-requests");
    static final AsciiString RESET_REQUESTS = AsciiString.cached("x-ratelimit-reset-requests");
    static final AsciiString LIMIT_TOKENS = AsciiString.cached("x-ratelimit-limit-tokens");
    static final AsciiString REMAINING_TOKENS = AsciiString.cached("x-ratelimit-remaining-tokens");
    static final AsciiString RESET_TOKENS = AsciiString.cached("x-ratelimit-reset-tokens");

    private RateLimitHeaders() {
    }

    static void set(Exchange x, TenantQuota.Taken taken) {
        set(x::responseHeader, taken);
    }

    /** The headers of what {@code taken} took, given to {@code out} (an exchange's answer, a refusal's headers). */
    static void set(BiConsumer<CharSequence, Object> out, TenantQuota.Taken taken) {
        if (taken.requests() != null) {
            set(out, LIMIT_REQUESTS, REMAINING_REQUESTS, RESET_REQUESTS, taken.requestBucket().capacity(),
                    taken.requests());
        }
        if (taken.tokens() != null) {
            set(out, LIMIT_TOKENS, REMAINING_TOKENS, RESET_TOKENS, taken.tokenBucket().capacity(), taken.tokens());
        }
    }

    private static void set(BiConsumer<CharSequence, Object> out, AsciiString limit, AsciiString remaining,
                            AsciiString reset, long capacity, ConsumptionProbe probe) {
        out.accept(limit, Long.toString(capacity));
        out.accept(remaining, Long.toString(Math.max(0, probe.getRemainingTokens())));
        out.accept(reset, duration(probe.getNanosToWaitForReset()));
    }

    /** Go's {@code time.Duration} text, to the millisecond: {@code 0s}, {@code 250ms}, {@code 1.5s}, {@code 6m0s}. */
    static String duration(long nanos) {
        long millis = (Math.max(0, nanos) + 999_999) / 1_000_000; // rounded up: never too early
        if (millis == 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        StringBuilder out = new StringBuilder();
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        out.append(millis / 1000 % 60);
        long fraction = millis % 1000;
        if (fraction > 0) {
            String digits = String.format("%03d", fraction);
            out.append('.').append(digits.replaceAll("0+$", ""));
        }
        return out.append('s').toString();
    }

    /** Whole seconds until {@code nanos} have passed, at least 1: {@code Retry-After}. */
    static long retryAfterSeconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }
}
