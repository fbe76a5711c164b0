package io.cachegate.gateway.telemetry.trace;

import io.cachegate.gateway.exchange.Exchange;
import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;

/**
 * Where work that outlives the stages finds its exchange's trace (a write after the answer, the upstream call):
 * {@code Traces.of(x).start("cache.write")}. The stages' own spans come from the finished record.
 */
public final class Traces {

    static final Exchange.Key<RequestTrace> KEY = Exchange.Key.named("trace");

    private Traces() {
    }

    /** The exchange's trace, or {@link RequestTrace#OFF} when it has none (tracing off: one map lookup, no allocation). */
    public static RequestTrace of(Exchange x) {
        RequestTrace trace = x.get(KEY);
        return trace == null ? RequestTrace.OFF : trace;
    }

    /**
     * The trace id of the client's W3C {@code traceparent}, read as the tracer reads it (OpenTelemetry's
     * propagator); null for none, a malformed one or the all-zero id. For the access log of an untraced request.
     */
    public static String clientTraceId(HttpHeaders headers) {
        SpanContext parent = Span.fromContext(W3CTraceContextPropagator.getInstance()
                .extract(Context.root(), headers, TraceObserver.GETTER)).getSpanContext();
        return parent.isValid() ? parent.getTraceId() : null;
    }
}
