package io.cachegate.gateway.telemetry.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.semconv.ErrorAttributes;
import java.util.concurrent.TimeUnit;

/** A {@link StageSpan} of a traced request, ended on its trace's clock as all the trace's spans are. */
final class OtelStageSpan implements StageSpan {

    private final ExchangeTrace trace;
    private final Span span;

    OtelStageSpan(ExchangeTrace trace, Span span) {
        this.trace = trace;
        this.span = span;
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
