package io.cachegate.gateway.exchange;

/**
 * An answer a stage keeps ready for when the backend cannot give one: a cache entry past its TTL that may still
 * answer ({@code stale_if_error}). Registered on the exchange ({@link Exchange#standIn}); an error caused by a backend
 * failure or overload is answered by it instead ({@link Exchange#answeredByStandIn}), any other error never is.
 */
public interface StandIn {

    /**
     * Answers {@code x} in place of an error; false when it cannot (then the error is answered).
     *
     * @param cause why the backend could not answer, a bounded name: {@code backend_unavailable},
     *              {@code backend_error}, {@code backend_timeout} or {@code overloaded}
     */
    boolean answer(Exchange x, String cause);
}
