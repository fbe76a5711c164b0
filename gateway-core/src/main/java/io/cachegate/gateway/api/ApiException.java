package io.cachegate.gateway.api;

/**
 * An expected failure of a client request (bad input, unknown model, ...). It carries no stack
 * trace: rejecting bad input is routine and must stay cheap.
 */
public final class ApiException extends RuntimeException {

    private final ErrorKind kind;
    private final String param;

    public ApiException(ErrorKind kind, String message) {
        this(kind, message, null);
    }

    public ApiException(ErrorKind kind, String message, String param) {
        super(message, null, false, false);
        this.kind = kind;
        this.param = param;
    }

    public ErrorKind kind() {
        return kind;
    }

    /** The request field at fault, or null. */
    public String param() {
        return param;
    }
}
