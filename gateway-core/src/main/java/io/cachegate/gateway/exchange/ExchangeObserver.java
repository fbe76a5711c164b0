package io.cachegate.gateway.exchange;

/**
 * Sees every exchange begin and end, on its event loop: the access log, the trace, the savings. An observer must
 * not block (hand slow work to a bounded executor) and must not throw; the exchange's answer is already decided.
 */
public interface ExchangeObserver {

    /** Observes nothing. */
    ExchangeObserver NONE = new ExchangeObserver() {
    };

    /** The exchange exists and is about to enter the first stage. */
    default void started(Exchange x) {
    }

    /**
     * The exchange finished, once, with this status, {@code nanos} after it started; its {@link Exchange#record()}
     * holds what the stages learned.
     */
    default void finished(Exchange x, int status, long nanos) {
    }

    /**
     * A request refused on its head alone, before it became an exchange (unknown path, missing API key, body too
     * large, a malformed request): only the log sees these.
     *
     * @param requestId the id the answer carries, or null when it carries none
     * @param reason the error's code, e.g. {@code invalid_api_key}, or a finer one ({@code quota_requests})
     * @param tenant the tenant the head was known to be from, or null
     */
    default void refused(int status, String requestId, String reason, String tenant) {
    }

    /** The observers in order; {@code NONE} when there are none. */
    static ExchangeObserver of(java.util.List<ExchangeObserver> observers) {
        if (observers.isEmpty()) {
            return NONE;
        }
        if (observers.size() == 1) {
            return observers.get(0);
        }
        ExchangeObserver[] all = observers.toArray(ExchangeObserver[]::new);
        return new ExchangeObserver() {
            @Override
            public void started(Exchange x) {
                for (ExchangeObserver o : all) {
                    o.started(x);
                }
            }

            @Override
            public void finished(Exchange x, int status, long nanos) {
                for (ExchangeObserver o : all) {
                    o.finished(x, status, nanos);
                }
            }

            @Override
            public void refused(int status, String requestId, String reason, String tenant) {
                for (ExchangeObserver o : all) {
                    o.refused(status, requestId, reason, tenant);
                }
            }
        };
    }
}
