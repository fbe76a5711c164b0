package io.cachegate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code telemetry} section: OpenTelemetry traces, exported over OTLP when an endpoint is set.
 *
 * @param sampling the share of requests traced when the client's {@code traceparent} did not decide it
 * @param endpoint the collector's URL; empty: no traces, and tracing costs nothing
 * @param maxQueuedSpans spans waiting for export at most; more are dropped
 */
public record TelemetrySettings(String serviceName, double sampling, Optional<String> endpoint, OtlpProtocol protocol,
                                Duration timeout, int maxQueuedSpans) {

    public static TelemetrySettings defaults() {
        return new TelemetrySettings(TelemetryKeys.SERVICE_NAME.fallback(), TelemetryKeys.SAMPLING.fallback(),
                Optional.empty(), TelemetryKeys.OTLP_PROTOCOL.fallback(), TelemetryKeys.OTLP_TIMEOUT.fallback(),
                TelemetryKeys.MAX_QUEUED_SPANS.fallback());
    }

    /** True when spans are exported. */
    public boolean tracing() {
        return endpoint.isPresent();
    }
}
