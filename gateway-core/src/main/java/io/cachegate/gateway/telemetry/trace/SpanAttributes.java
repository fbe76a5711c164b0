package io.cachegate.gateway.telemetry.trace;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The gateway's own span attributes, besides the OpenTelemetry semantic conventions (HTTP, GenAI) the spans carry
 * too. Bounded values except the ids; never a prompt, an answer or a key.
 */
public final class SpanAttributes {

    /** hit, miss or bypass, as {@code X-Cache}. */
    public static final AttributeKey<String> CACHE_OUTCOME = AttributeKey.stringKey("cachegate.cache.outcome");
    /** The layer that answered a hit: exact or semantic. */
    public static final AttributeKey<String> CACHE_LAYER = AttributeKey.stringKey("cachegate.cache.layer");
    /** The cosine similarity of a semantic hit (or of the best neighbour, on a semantic lookup span). */
    public static final AttributeKey<Double> SIMILARITY = AttributeKey.doubleKey("cachegate.similarity");
    public static final AttributeKey<String> TENANT = AttributeKey.stringKey("cachegate.tenant");
    /** The traffic class admission control filed the request under. */
    public static final AttributeKey<String> CLASS = AttributeKey.stringKey("cachegate.class");
    /** The index of the policy route the request matched, as in the metrics. */
    public static final AttributeKey<String> ROUTE = AttributeKey.stringKey("cachegate.route");
    /** The gateway's request id ({@code X-Request-Id}). */
    public static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("cachegate.request_id");
    /** Why the cache was bypassed or the request refused (a bounded name such as {@code queue_full}). */
    public static final AttributeKey<String> REASON = AttributeKey.stringKey("cachegate.reason");
    /** The gateway id of the request whose answer was served (a hit's entry, a coalesced leader). */
    public static final AttributeKey<String> ORIGIN_REQUEST_ID = AttributeKey.stringKey("cachegate.origin_request_id");
    /** The backend (policy name) that was called. */
    public static final AttributeKey<String> BACKEND = AttributeKey.stringKey("cachegate.backend");
    /** kv_aware routing: the prompt's leading blocks each replica holds, over its full blocks ({@code 12,0,3/20}). */
    public static final AttributeKey<String> KV_BLOCKS = AttributeKey.stringKey("cachegate.kv_blocks");
    /** Which attempt an upstream call is: 1, or more after a retry or a fallback. */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("cachegate.upstream.attempt");
    /** What a link points at: {@code origin} (the request that generated the answer served). */
    public static final AttributeKey<String> LINK = AttributeKey.stringKey("cachegate.link");

    private SpanAttributes() {
    }
}
