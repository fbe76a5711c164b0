package io.cachegate.gateway.telemetry.trace;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import java.util.function.Predicate;

/**
 * The SDK's own counts of what became of the spans (its {@code otel.sdk.processor.span.processed} and {@code
 * otel.sdk.exporter.span.exported} meters), read at each scrape and shown as {@code cachegate.trace.spans} by
 * outcome: exported, dropped (the batch queue was full), failed (the export failed or timed out).
 */
final class SpanExportMetrics implements MetricReader {

    static final String METRIC = "cachegate.trace.spans";
    private static final String PROCESSED = "otel.sdk.processor.span.processed";
    private static final String EXPORTED = "otel.sdk.exporter.span.exported";
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final SdkMeterProvider meters;
    private volatile CollectionRegistration registration = CollectionRegistration.noop();

    SpanExportMetrics(MeterRegistry registry) {
        this.meters = SdkMeterProvider.builder().registerMetricReader(this).build();
        FunctionCounter.builder(METRIC, this, m -> m.sum(EXPORTED, p -> p.getAttributes().get(ERROR_TYPE) == null))
                .tag("outcome", "exported").description("Spans sent to the OTLP collector").register(registry);
        FunctionCounter.builder(METRIC, this, m -> m.sum(PROCESSED, p -> p.getAttributes().get(ERROR_TYPE) != null))
                .tag("outcome", "dropped").description("Spans dropped because the export queue was full")
                .register(registry);
        FunctionCounter.builder(METRIC, this, m -> m.sum(EXPORTED, p -> p.getAttributes().get(ERROR_TYPE) != null))
                .tag("outcome", "failed").description("Spans whose export failed or timed out").register(registry);
    }

    /** What the batch processor and the exporter record their counts in. */
    SdkMeterProvider meterProvider() {
        return meters;
    }

    private double sum(String metric, Predicate<LongPointData> which) {
        long total = 0;
        for (MetricData data : registration.collectAllMetrics()) {
            if (data.getName().equals(metric) && data.getType() == MetricDataType.LONG_SUM) {
                for (LongPointData point : data.getLongSumData().getPoints()) {
                    if (which.test(point)) {
                        total += point.getValue();
                    }
                }
            }
        }
        return total;
    }

    @Override
    public void register(CollectionRegistration registration) {
        this.registration = registration;
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return AggregationTemporality.CUMULATIVE;
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }

    /** Stops the meter provider this reader belongs to. */
    void stop() {
        meters.close();
    }
}
