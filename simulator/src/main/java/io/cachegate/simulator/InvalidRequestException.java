package io.cachegate.simulator;

/** A request the simulator refuses (400, 404); expected, so it carries no stack trace. */
final class InvalidRequestException extends RuntimeException {

    final ApiError error;
    final String param;

    InvalidRequestException(ApiError error, String message, String param) {
        super(message, null, false, false);
        this.error = error;
        this.param = param;
    }

    static InvalidRequestException badRequest(String message, String param) {
        return new InvalidRequestException(ApiError.BAD_REQUEST, message, param);
    }
}
