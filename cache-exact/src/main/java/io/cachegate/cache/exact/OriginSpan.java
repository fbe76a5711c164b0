package io.cachegate.cache.exact;

import java.util.HexFormat;

/**
 * The span of the request that generated a stored answer (W3C trace context ids, lowercase hex), so a hit's trace
 * can link to the trace that produced it. Entries from untraced requests have none.
 *
 * @param traceId 32 hex digits, not all zero
 * @param spanId 16 hex digits, not all zero
 */
public record OriginSpan(String traceId, String spanId) {

    static final int TRACE_ID_BYTES = 16;
    static final int SPAN_ID_BYTES = 8;

    public OriginSpan {
        check(traceId, TRACE_ID_BYTES, "traceId");
        check(spanId, SPAN_ID_BYTES, "spanId");
    }

    /** The ids as stored: trace id bytes then span id bytes. */
    byte[] bytes() {
        byte[] out = new byte[TRACE_ID_BYTES + SPAN_ID_BYTES];
        HexFormat hex = HexFormat.of();
        System.arraycopy(hex.parseHex(traceId), 0, out, 0, TRACE_ID_BYTES);
        System.arraycopy(hex.parseHex(spanId), 0, out, TRACE_ID_BYTES, SPAN_ID_BYTES);
        return out;
    }

    /** Reads what {@link #bytes()} wrote. */
    static OriginSpan of(byte[] bytes, int offset) {
        HexFormat hex = HexFormat.of();
        return new OriginSpan(hex.formatHex(bytes, offset, offset + TRACE_ID_BYTES),
                hex.formatHex(bytes, offset + TRACE_ID_BYTES, offset + TRACE_ID_BYTES + SPAN_ID_BYTES));
    }

    private static void check(String id, int bytes, String what) {
        if (id == null || id.length() != bytes * 2 || !id.chars().allMatch(c -> (c >= '0' && c <= '9')
                || (c >= 'a' && c <= 'f')) || id.chars().allMatch(c -> c == '0')) {
            throw new IllegalArgumentException(what + " must be " + bytes * 2 + " lowercase hex digits, not all zero: "
                    + id);
        }
    }
}
