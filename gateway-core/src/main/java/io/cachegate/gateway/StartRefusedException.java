package io.cachegate.gateway;

/**
 * The gateway will not start with this policy, for a reason the operator must fix (an admin listener open to the
 * network without a token). Its message says what to change; {@code cachegate serve} prints it and exits with 2.
 */
public final class StartRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StartRefusedException(String message) {
        super(message, null, false, false);
    }
}
