package io.cachegate.config;

import static io.cachegate.config.TelemetryKeys.ACCESS;
import static io.cachegate.config.TelemetryKeys.EXPORT_DELAY;
import static io.cachegate.config.TelemetryKeys.FILE;
import static io.cachegate.config.TelemetryKeys.INCLUDE_TEXT;
import static io.cachegate.config.TelemetryKeys.MAX_FILES;
import static io.cachegate.config.TelemetryKeys.MAX_FILE_SIZE;
import static io.cachegate.config.TelemetryKeys.MAX_QUEUED_SPANS;
import static io.cachegate.config.TelemetryKeys.OTLP_ENDPOINT;
import static io.cachegate.config.TelemetryKeys.OTLP_PROTOCOL;
import static io.cachegate.config.TelemetryKeys.OTLP_TIMEOUT;
import static io.cachegate.config.TelemetryKeys.PRICE_INPUT;
import static io.cachegate.config.TelemetryKeys.PRICE_OUTPUT;
import static io.cachegate.config.TelemetryKeys.QUEUE_LINES;
import static io.cachegate.config.TelemetryKeys.SAMPLE_FILE;
import static io.cachegate.config.TelemetryKeys.SAMPLE_RATE;
import static io.cachegate.config.TelemetryKeys.SAMPLING;
import static io.cachegate.config.TelemetryKeys.SERVICE_NAME;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** Reads {@code telemetry}, {@code log} and {@code prices} (keys in {@link TelemetryKeys}). */
final class TelemetryReader {

    private TelemetryReader() {
    }

    static TelemetrySettings telemetry(Fields root) {
        Fields telemetry = root.section(TelemetryKeys.TELEMETRY);
        if (telemetry == null) {
            return TelemetrySettings.defaults();
        }
        Fields otlp = telemetry.section(TelemetryKeys.OTLP);
        TelemetrySettings d = TelemetrySettings.defaults();
        Optional<String> endpoint = otlp == null ? Optional.empty() : otlp.get(OTLP_ENDPOINT);
        if (endpoint.isPresent() && !httpUrl(endpoint.get())) {
            otlp.problem(OTLP_ENDPOINT.name(), Durations.quote(endpoint.get())
                    + " is not an http:// or https:// URL with a host");
            endpoint = Optional.empty();
        }
        return new TelemetrySettings(telemetry.get(SERVICE_NAME), telemetry.get(SAMPLING), endpoint,
                otlp == null ? d.protocol() : otlp.get(OTLP_PROTOCOL),
                otlp == null ? d.timeout() : otlp.get(OTLP_TIMEOUT),
                otlp == null ? d.exportDelay() : otlp.get(EXPORT_DELAY),
                otlp == null ? d.maxQueuedSpans() : otlp.get(MAX_QUEUED_SPANS));
    }

    static LogSettings log(Fields root) {
        Fields log = root.section(TelemetryKeys.LOG);
        if (log == null) {
            return LogSettings.defaults();
        }
        LogSink access = log.get(ACCESS);
        Optional<String> file = log.get(FILE);
        if (access == LogSink.FILE && file.isEmpty()) {
            log.problem(ACCESS.name(), "file needs log.file, the path to write to");
            access = LogSink.STDOUT;
        }
        Fields sample = log.section(TelemetryKeys.SAMPLE);
        double rate = sample == null ? 0 : sample.get(SAMPLE_RATE);
        Optional<String> sampleFile = sample == null ? Optional.empty() : sample.get(SAMPLE_FILE);
        if (rate > 0 && sampleFile.isEmpty()) {
            sample.problem(SAMPLE_RATE.name(), "needs sample_requests.file, the path to write sampled requests to");
            rate = 0;
        }
        return new LogSettings(access, file, log.get(MAX_FILE_SIZE), log.get(MAX_FILES), log.get(QUEUE_LINES),
                log.get(INCLUDE_TEXT), rate, sampleFile);
    }

    /** The prices in file order; the first whose model glob matches a model prices it. */
    static List<ModelPrice> prices(Fields root) {
        Section section = TelemetryKeys.PRICES;
        if (!root.has(section.name())) {
            return List.of();
        }
        Fields prices = root.section(section.name(), null); // any model name or glob is a key
        if (prices == null) {
            return List.of();
        }
        List<ModelPrice> out = new ArrayList<>();
        for (String model : prices.keys()) {
            Node node = prices.node(model);
            Fields fields = root.reader().fields(node, prices.path(model), section.names());
            if (fields != null) {
                out.add(new ModelPrice(model, fields.get(PRICE_INPUT), fields.get(PRICE_OUTPUT)));
            }
        }
        return List.copyOf(out);
    }

    private static boolean httpUrl(String text) {
        try {
            URI uri = new URI(text);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
