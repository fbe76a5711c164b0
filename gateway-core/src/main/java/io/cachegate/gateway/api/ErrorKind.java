package io.cachegate.gateway.api;

/**
 * Every failure the gateway reports to a client, with its HTTP status and OpenAI error type in one
 * place, so handlers name a kind instead of picking status codes.
 */
public enum ErrorKind {
    INVALID_JSON(400, "invalid_request_error", "invalid_json"),
    INVALID_REQUEST(400, "invalid_request_error", "invalid_request"),
    INVALID_API_KEY(401, "invalid_request_error", "invalid_api_key"),
    FORBIDDEN(403, "invalid_request_error", "forbidden"),
    /** X-Cache-Labels named a label the request's API key does not hold. */
    LABEL_NOT_PERMITTED(403, "invalid_request_error", "label_not_permitted"),
    MODEL_NOT_FOUND(404, "invalid_request_error", "model_not_found"),
    NOT_FOUND(404, "invalid_request_error", "not_found"),
    METHOD_NOT_ALLOWED(405, "invalid_request_error", "method_not_allowed"),
    /** The request head or body did not arrive within server.header_timeout or server.body_timeout. */
    REQUEST_TIMEOUT(408, "invalid_request_error", "request_timeout"),
    BODY_TOO_LARGE(413, "invalid_request_error", "request_too_large"),
    /** A body sent as something other than JSON (Content-Type), on an endpoint that reads JSON. */
    UNSUPPORTED_MEDIA_TYPE(415, "invalid_request_error", "unsupported_media_type"),
    URI_TOO_LONG(414, "invalid_request_error", "uri_too_long"),
    HEADERS_TOO_LARGE(431, "invalid_request_error", "headers_too_large"),
    /** Admission control turned the request away (queue full, wait too long, class paused in overload). */
    QUEUE_FULL(429, "rate_limit_error", "queue_full"),
    QUEUE_WAIT_TOO_LONG(429, "rate_limit_error", "queue_wait_too_long"),
    CLASS_PAUSED(429, "rate_limit_error", "class_paused_in_overload"),
    /** More requests were pipelined on one connection than the gateway holds; each extra one is refused in order. */
    TOO_MANY_PIPELINED(429, "rate_limit_error", "too_many_pipelined_requests"),
    /** The tenant's limits (tenants[].limits): requests per second or in flight, and tokens per minute. */
    RATE_LIMITED_REQUESTS(429, "requests", "rate_limit_exceeded"),
    RATE_LIMITED_TOKENS(429, "tokens", "rate_limit_exceeded"),
    /** The tenant's request bodies still arriving hold its share of server.max_buffered_body_bytes_per_tenant. */
    BODY_BUDGET_TENANT(429, "rate_limit_error", "buffered_bodies_limit_exceeded"),
    /** A queued request outlived its class's max_queue_time. */
    QUEUE_TIMEOUT(503, "server_error", "queue_timeout"),
    UPSTREAM_UNREACHABLE(502, "upstream_error", "upstream_unreachable"),
    UPSTREAM_BAD_RESPONSE(502, "upstream_error", "upstream_bad_response"),
    OVERLOADED(503, "server_error", "overloaded"),
    /** Request bodies still arriving hold all of server.max_buffered_body_bytes. */
    BODY_BUDGET_GLOBAL(503, "server_error", "buffered_bodies_limit_exceeded"),
    SHUTTING_DOWN(503, "server_error", "shutting_down"),
    UPSTREAM_TIMEOUT(504, "upstream_error", "upstream_timeout"),
    INTERNAL(500, "server_error", "internal_error");

    private final int status;
    private final String type;
    private final String code;

    ErrorKind(int status, String type, String code) {
        this.status = status;
        this.type = type;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String code() {
        return code;
    }

    /**
     * The backend failure or overload this error reports, as a bounded name ({@code backend_unavailable},
     * {@code backend_error}, {@code backend_timeout}, {@code overloaded}), for which a stored answer past its TTL may
     * stand in; null for an error about the request, its tenant's limits or the gateway itself.
     */
    public String outage() {
        return switch (this) {
            case UPSTREAM_UNREACHABLE -> "backend_unavailable";
            case UPSTREAM_BAD_RESPONSE -> "backend_error";
            case UPSTREAM_TIMEOUT -> "backend_timeout";
            case QUEUE_FULL, QUEUE_WAIT_TOO_LONG, CLASS_PAUSED, QUEUE_TIMEOUT, OVERLOADED -> "overloaded";
            default -> null;
        };
    }
}
