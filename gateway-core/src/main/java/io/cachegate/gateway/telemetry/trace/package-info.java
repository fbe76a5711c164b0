/**
 * Request tracing with the OpenTelemetry SDK: one SERVER span per exchange ({@link
 * io.cachegate.gateway.telemetry.trace.TraceObserver}), child spans the stages start through {@link
 * io.cachegate.gateway.telemetry.trace.Traces#of}, exported over OTLP by a batch processor on its own thread. With
 * tracing off no observer is registered and every stage gets {@link io.cachegate.gateway.telemetry.trace.RequestTrace#OFF}.
 */
package io.cachegate.gateway.telemetry.trace;
