package io.cachegate.gateway.telemetry.log;

/**
 * The trace id in a W3C {@code traceparent} header ({@code 00-<32 hex>-<16 hex>-<2 hex>}), for the access log of
 * a request the gateway did not trace itself: a client's id lets its trace and this line be joined.
 */
final class TraceParent {

    private TraceParent() {
    }

    /** The trace id of a well-formed {@code traceparent}; null for none, a malformed one or the all-zero id. */
    static String traceId(String header) {
        if (header == null) {
            return null;
        }
        String value = header.trim();
        if (value.length() < 55 || value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-'
                || value.startsWith("ff") || value.startsWith("00") && value.length() != 55) {
            return null;
        }
        String id = value.substring(3, 35);
        boolean nonZero = false;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return null;
            }
            nonZero |= c != '0';
        }
        return nonZero && hex(value, 0, 2) && hex(value, 36, 52) && hex(value, 53, 55) ? id : null;
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
