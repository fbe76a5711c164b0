package io.cachegate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code telemetry} section: OpenTelemetry traces, exported over OTLP when an endpoint is set.
 *
 * @param sampling the share of requests traced when the client's {@code traceparent} did not decide it
 * @param endpoint the collector's URL; empty: no traces, and tracing costs nothing
 * @param exportDelay the longest a finished span waits for its batch to be exported
 * @param maxQueuedSpans spans waiting for export at most; more are dropped
 */
public record TelemetrySettings(String serviceName, double sampling, Optional<String> endpoint, OtlpProtocol protocol,
                                Duration timeout, Duration exportDelay, int maxQueuedSpans) {

    public static TelemetrySettings defaults() {
        return new TelemetrySettings(TelemetryKeys.SERVICE_NAME.fallback(), TelemetryKeys.SAMPLING.fallback(),
                Optional.empty(), TelemetryKeys.OTLP_PROTOCOL.fallback(), TelemetryKeys.OTLP_TIMEOUT.fallback(),
                TelemetryKeys.EXPORT_DELAY.fallback(), TelemetryKeys.MAX_QUEUED_SPANS.fallback());
    }

    /** True when spans are exported. */
    public boolean tracing() {
        return endpoint.isPresent();
    }
}
