package io.cachegate.gateway.telemetry.trace;

import io.cachegate.gateway.exchange.Exchange;

/** Where a stage finds its exchange's trace: {@code Traces.of(x).start("cache.exact.lookup")}. */
public final class Traces {

    static final Exchange.Key<RequestTrace> KEY = Exchange.Key.named("trace");

    private Traces() {
    }

    /** The exchange's trace, or {@link RequestTrace#OFF} when it has none (tracing off: one map lookup, no allocation). */
    public static RequestTrace of(Exchange x) {
        RequestTrace trace = x.get(KEY);
        return trace == null ? RequestTrace.OFF : trace;
    }
}
