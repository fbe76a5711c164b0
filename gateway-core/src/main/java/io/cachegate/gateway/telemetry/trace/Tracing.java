package io.cachegate.gateway.telemetry.trace;

import io.cachegate.config.OtlpProtocol;
import io.cachegate.config.TelemetrySettings;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.common.InternalTelemetryVersion;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.semconv.ServiceAttributes;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's tracer: an OpenTelemetry SDK tracer provider built once, sampling {@code telemetry.sampling} of
 * the requests whose client did not decide (a client's sampled or unsampled {@code traceparent} is kept), exporting
 * over OTLP from a batch processor's own thread with a bounded queue (a full queue drops, never waits). Closing it
 * flushes what is queued.
 */
public final class Tracing implements AutoCloseable {

    private static final String SCOPE = "io.cachegate.gateway";

    private final SdkTracerProvider provider;
    private final SpanExportMetrics exportMetrics;
    private final long closeTimeoutMillis;
    private final ExchangeObserver observer;

    private Tracing(TelemetrySettings settings, SpanProcessor processor, SpanExportMetrics exportMetrics) {
        this.exportMetrics = exportMetrics;
        this.closeTimeoutMillis = settings.timeout().toMillis() + 1_000;
        this.provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.builder()
                        .put(ServiceAttributes.SERVICE_NAME, settings.serviceName()).build()))
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(settings.sampling())))
                .addSpanProcessor(processor)
                .build();
        this.observer = new TraceObserver(provider.get(SCOPE), Clock.getDefault());
    }

    /** Tracing as the policy says: OTLP export to {@code telemetry.otlp.endpoint}, or empty when none is set. */
    public static Optional<Tracing> start(TelemetrySettings settings, MeterRegistry registry) {
        if (!settings.tracing()) {
            return Optional.empty();
        }
        SpanExportMetrics metrics = new SpanExportMetrics(registry);
        SpanExporter exporter = exporter(settings.endpoint().orElseThrow(), settings, metrics);
        SpanProcessor processor = BatchSpanProcessor.builder(exporter)
                .setMaxQueueSize(settings.maxQueuedSpans())
                .setMaxExportBatchSize(Math.min(512, settings.maxQueuedSpans()))
                .setExporterTimeout(settings.timeout())
                .setScheduleDelay(settings.exportDelay())
                .setMeterProvider(metrics::meterProvider)
                .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
                .build();
        return Optional.of(new Tracing(settings, processor, metrics));
    }

    /**
     * For tests: spans go to {@code exporter} as each ends, on the thread that ends it (no batching, so a test sees
     * them at once); sampled as {@code settings} say, whatever its endpoint.
     */
    public static Tracing exportingTo(SpanExporter exporter, TelemetrySettings settings) {
        return new Tracing(settings, SimpleSpanProcessor.create(exporter), null);
    }

    /**
     * OTLP over HTTP/protobuf to {@code <endpoint>/v1/traces} from the JDK's HttpClient, or with {@code protocol:
     * grpc} to the collector's TraceService at {@code endpoint} on grpc-java (the managed-channel sender).
     */
    static SpanExporter exporter(String endpoint, TelemetrySettings settings, SpanExportMetrics metrics) {
        if (settings.protocol() == OtlpProtocol.GRPC) {
            return OtlpGrpcSpanExporter.builder().setEndpoint(endpoint).setTimeout(settings.timeout())
                    .setMeterProvider(metrics::meterProvider)
                    .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST).build();
        }
        return OtlpHttpSpanExporter.builder().setEndpoint(tracesUrl(endpoint)).setTimeout(settings.timeout())
                .setMeterProvider(metrics::meterProvider)
                .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST).build();
    }

    /** The collector's base URL with OTLP's trace path, unless it names that path already. */
    static String tracesUrl(String endpoint) {
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        return base.endsWith("/v1/traces") ? base : base + "/v1/traces";
    }

    /** Starts and ends each exchange's server span; the stages add theirs through {@link Traces#of}. */
    public ExchangeObserver observer() {
        return observer;
    }

    /** Exports what is queued (within the export timeout) and stops the processor's thread. */
    @Override
    public void close() {
        provider.shutdown().join(closeTimeoutMillis, TimeUnit.MILLISECONDS);
        if (exportMetrics != null) {
            exportMetrics.stop();
        }
    }
}
