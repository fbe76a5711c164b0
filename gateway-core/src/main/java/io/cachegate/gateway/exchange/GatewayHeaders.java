package io.cachegate.gateway.exchange;

import io.netty.util.AsciiString;

/** The names of the headers the gateway adds to answers and reads from requests. */
public final class GatewayHeaders {

    public static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");
    public static final AsciiString X_CACHE = AsciiString.cached("x-cache");
    public static final AsciiString SERVER_TIMING = AsciiString.cached("server-timing");
    public static final AsciiString X_CACHE_LAYER = AsciiString.cached("x-cache-layer");
    /** The gateway's id of the request that generated an answer served from the cache or shared with a follower. */
    public static final AsciiString X_CACHE_ORIGIN_REQUEST_ID = AsciiString.cached("x-cache-origin-request-id");
    public static final AsciiString X_CACHE_COALESCED = AsciiString.cached("x-cache-coalesced");
    public static final AsciiString X_CACHE_CONTEXT = AsciiString.cached("x-cache-context");
    public static final AsciiString X_CACHE_TAGS = AsciiString.cached("x-cache-tags");
    public static final AsciiString X_CACHE_LABELS = AsciiString.cached("x-cache-labels");
    public static final AsciiString X_CACHE_THRESHOLD = AsciiString.cached("x-cache-threshold");
    /** The model that answered: the request's own, or the route's fallback when it was moved there. */
    public static final AsciiString X_CACHEGATE_MODEL = AsciiString.cached("x-cachegate-model");
    public static final AsciiString X_CACHE_SIMILARITY = AsciiString.cached("x-cache-similarity");
    /** On an embeddings batch cached per item: {@code <items from the cache>/<items in the request>}. */
    public static final AsciiString X_CACHE_ITEMS = AsciiString.cached("x-cache-items");
    /**
     * On a stale answer: why it is stale and by how much, e.g. {@code if-error; reason=backend_unavailable;
     * past-ttl=42} (RFC 9111 made {@code Warning} obsolete, so the gateway states it in its own header).
     */
    public static final AsciiString X_CACHE_STALE = AsciiString.cached("x-cache-stale");
    public static final AsciiString BYPASS = AsciiString.cached("BYPASS");
    public static final AsciiString MISS = AsciiString.cached("MISS");
    public static final AsciiString HIT = AsciiString.cached("HIT");
    /** A stored answer past its TTL, served because the backend could not answer. */
    public static final AsciiString STALE = AsciiString.cached("STALE");
    /** An embeddings batch answered partly from the cache, partly by the backend. */
    public static final AsciiString PARTIAL = AsciiString.cached("PARTIAL");

    private GatewayHeaders() {
    }

    /** The {@code X-Cache} value as a metric tag: hit, stale, partial, miss or bypass. */
    public static String outcome(CharSequence xCache) {
        if (HIT.contentEqualsIgnoreCase(xCache)) {
            return "hit";
        }
        if (STALE.contentEqualsIgnoreCase(xCache)) {
            return "stale";
        }
        if (PARTIAL.contentEqualsIgnoreCase(xCache)) {
            return "partial";
        }
        return MISS.contentEqualsIgnoreCase(xCache) ? "miss" : "bypass";
    }

    /** Formats one Server-Timing metric, e.g. {@code upstream;dur=12.345} (milliseconds). */
    public static void appendTiming(StringBuilder out, String name, long nanos) {
        if (out.length() > 0) {
            out.append(", ");
        }
        long micros = nanos / 1_000;
        out.append(name).append(";dur=").append(micros / 1000).append('.');
        long frac = micros % 1000;
        if (frac < 100) {
            out.append('0');
        }
        if (frac < 10) {
            out.append('0');
        }
        out.append(frac);
    }
}
