package io.cachegate.gateway.telemetry.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.ErrorAttributes;
import java.util.concurrent.TimeUnit;

/**
 * A stage's span of a traced request. Its times come from its trace's clock, as all the trace's spans' do; it knows
 * when it started, to place the children others timed.
 */
final class OtelStageSpan implements StageSpan {

    private final ExchangeTrace trace;
    private final Span span;
    private final long startEpochNanos;

    OtelStageSpan(ExchangeTrace trace, Span span, long startEpochNanos) {
        this.trace = trace;
        this.span = span;
        this.startEpochNanos = startEpochNanos;
    }

    @Override
    public StageSpan set(String key, String value) {
        if (value != null) {
            span.setAttribute(key, value);
        }
        return this;
    }

    @Override
    public StageSpan set(String key, long value) {
        span.setAttribute(key, value);
        return this;
    }

    @Override
    public StageSpan set(String key, double value) {
        if (!Double.isNaN(value)) {
            span.setAttribute(key, value);
        }
        return this;
    }

    @Override
    public void child(String name, long offsetNanos, long durationNanos) {
        if (!span.isRecording()) {
            return;
        }
        long start = startEpochNanos + Math.max(0, offsetNanos);
        trace.tracer().spanBuilder(name).setParent(Context.root().with(span)).setStartTimestamp(start, TimeUnit.NANOSECONDS)
                .startSpan().end(start + Math.max(0, durationNanos), TimeUnit.NANOSECONDS);
    }

    @Override
    public void fail(String reason) {
        span.setStatus(StatusCode.ERROR, reason);
        span.setAttribute(ErrorAttributes.ERROR_TYPE, reason);
        end();
    }

    @Override
    public void end() {
        span.end(trace.now(), TimeUnit.NANOSECONDS);
    }
}
