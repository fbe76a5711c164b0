package io.cachegate.simulator;

import io.netty.handler.codec.http.HttpResponseStatus;

/** The error kinds the simulator answers with, each with its status and vLLM's error type name. */
enum ApiError {
    BAD_REQUEST(HttpResponseStatus.BAD_REQUEST, "BadRequestError"),
    NOT_FOUND(HttpResponseStatus.NOT_FOUND, "NotFoundError"),
    METHOD_NOT_ALLOWED(HttpResponseStatus.METHOD_NOT_ALLOWED, "MethodNotAllowed"),
    INTERNAL(HttpResponseStatus.INTERNAL_SERVER_ERROR, "InternalServerError"),
    OVERLOADED(HttpResponseStatus.SERVICE_UNAVAILABLE, "ServiceUnavailableError");

    final HttpResponseStatus status;
    final String type;

    ApiError(HttpResponseStatus status, String type) {
        this.status = status;
        this.type = type;
    }

    /** {@code {"error":{"message","type","param","code"}}} as vLLM writes it (code is the status). */
    String body(String message, String param) {
        return "{\"error\":{\"message\":" + Json.quote(message)
                + ",\"type\":" + Json.quote(type)
                + ",\"param\":" + (param == null ? "null" : Json.quote(param))
                + ",\"code\":" + status.code() + "}}";
    }
}
