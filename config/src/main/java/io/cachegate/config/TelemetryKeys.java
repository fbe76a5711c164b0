package io.cachegate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The keys of {@code telemetry} (traces), {@code log} (access, audit and sampled requests) and {@code prices}; read by
 * {@link TelemetryReader}. The trace exporter and the log writers are built once, so their settings wait for a
 * restart; what a log line holds ({@code include_text}) and prices apply live.
 */
final class TelemetryKeys {

    static final Key<String> SERVICE_NAME = Key.string("service_name", "cachegate",
            "service.name of the spans this gateway exports");
    static final Key<Double> SAMPLING = Key.decimal("sampling", 0.1, "[0, 1]", v -> v >= 0 && v <= 1,
            v -> ClassKeys.format(v) + " is outside [0, 1]; it is the share of requests traced",
            "share of requests traced when the client sent no sampled traceparent (a client's decision is kept)");
    static final Key<Optional<String>> OTLP_ENDPOINT = Key.optional("endpoint", "none: no traces",
            "OTLP collector base URL, e.g. http://otel-collector:4318 (spans are posted to <endpoint>/v1/traces)");
    static final Key<OtlpProtocol> OTLP_PROTOCOL = Key.choice("protocol", OtlpProtocol.HTTP, true,
            "OTLP transport: http (protobuf over HTTP, the collector's port 4318) or grpc (4317)");
    static final Key<Duration> OTLP_TIMEOUT = Key.duration("timeout", Duration.ofSeconds(10),
            "one export's time limit; spans of a failed export are dropped and counted");
    static final Key<Duration> EXPORT_DELAY = Key.duration("export_delay", Duration.ofSeconds(5),
            Duration.ofMillis(10), Duration.ofMinutes(5),
            "longest a finished span waits for its batch to be exported (a full batch of 512 goes at once)");
    static final Key<Integer> MAX_QUEUED_SPANS = Key.integer("max_queued_spans", 2048, 1, 1_000_000,
            "spans waiting for export; more are dropped and counted, never waited for");

    static final Key<LogSink> ACCESS = Key.choice("access", LogSink.STDOUT, true,
            "where the access and audit log's JSON lines go: stdout, file, or off");
    static final Key<Optional<String>> FILE = Key.optional("file", "none",
            "the log file, with access: file; rotated by size");
    static final Key<Long> MAX_FILE_SIZE = Key.size("max_file_size", 100L << 20, 4096, Long.MAX_VALUE,
            "a log file this large is rotated (file.1, file.2, ...)");
    static final Key<Integer> MAX_FILES = Key.integer("max_files", 5, 1, 1000,
            "rotated files kept, besides the current one");
    static final Key<Integer> QUEUE_LINES = Key.integer("queue_lines", 8192, 16, 10_000_000,
            "lines waiting for the writer; more are dropped and counted, never waited for");
    static final Key<Boolean> INCLUDE_TEXT = Key.bool("include_text", false,
            "log the request body and the answer's text, redacted by the sensitive-data rules; never the API key")
            .live();
    static final Key<Double> SAMPLE_RATE = Key.decimal("rate", 0, "[0, 1]", v -> v >= 0 && v <= 1,
            v -> ClassKeys.format(v) + " is outside [0, 1]; it is the share of requests written",
            "share of parsed requests written as {\"tenant\", \"body\"} lines for cachegate analyze");
    static final Key<Optional<String>> SAMPLE_FILE = Key.optional("file", "none",
            "where sampled requests go (rotated like the access log); needed when rate is above 0");

    static final Section OTLP = Section.mapping("otlp", "trace export; without endpoint nothing is traced",
            OTLP_ENDPOINT, OTLP_PROTOCOL, OTLP_TIMEOUT, EXPORT_DELAY, MAX_QUEUED_SPANS);
    static final Section TELEMETRY = Section.mapping("telemetry", "OpenTelemetry traces of requests",
            SERVICE_NAME, SAMPLING).with(OTLP).restart();
    static final Section SAMPLE = Section.mapping("sample_requests", "a log of request bodies for cachegate analyze",
            SAMPLE_RATE, SAMPLE_FILE);
    static final Section LOG = Section.mapping("log", "the access and audit log: one JSON line per request and per "
            + "admin action", ACCESS, FILE, MAX_FILE_SIZE, MAX_FILES, QUEUE_LINES, INCLUDE_TEXT).with(SAMPLE).restart();

    static final Key<Double> PRICE_INPUT = Key.decimal("input", 0, ">= 0", v -> v >= 0,
            v -> ClassKeys.format(v) + " is negative", "price per million prompt tokens");
    static final Key<Double> PRICE_OUTPUT = Key.decimal("output", 0, ">= 0", v -> v >= 0,
            v -> ClassKeys.format(v) + " is negative", "price per million completion tokens");
    static final Section PRICES = Section.named("prices", "what a model's tokens cost, by model name or glob "
            + "(first match in file order), for the cost a hit saved; in any one currency", PRICE_INPUT, PRICE_OUTPUT)
            .live();

    private TelemetryKeys() {
    }
}
