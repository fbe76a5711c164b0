package io.cachegate.gateway.telemetry.log;

import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Opt-in request sampling: {@code log.sample_requests.rate} of the parsed requests are written as
 * {@code {"time", "tenant", "body"}} lines, the body redacted, for {@code cachegate analyze}. Which requests is
 * chosen at random (the share is what matters to the analyzer); the body is redacted on the writer's thread.
 */
public final class RequestSampler implements ExchangeObserver {

    private final LineWriter writer;
    private final double rate;
    private final SensitiveDataDetector detector;

    public RequestSampler(LineWriter writer, double rate, SensitiveDataDetector detector) {
        this.writer = writer;
        this.rate = rate;
        this.detector = detector;
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        if (x.parsed() == null || ThreadLocalRandom.current().nextDouble() >= rate) {
            return;
        }
        String time = Instant.ofEpochMilli(x.ticker().wallMillis()).toString();
        String tenant = x.tenant();
        var body = x.parsed().body(); // read-only once parsed
        writer.offer(() -> Json.line(1024, out -> {
            out.writeStartObject();
            out.writeStringField("time", time);
            out.writeStringField("tenant", tenant);
            out.writeFieldName("body");
            RedactedJson.write(body, detector, out);
            out.writeEndObject();
        }));
    }
}
