package io.cachegate.gateway.telemetry.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.config.Ticker;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.gateway.cache.AnswerText;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.UsageTail;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * The access log: one JSON line per finished exchange ({@link AccessLine}), offered to the log's
 * {@link LineWriter}. The facts are written on the event loop (a few dozen fields into a small buffer); with
 * {@code log.include_text} the request body and the answer's text are redacted and added on the writer's thread.
 * Puts a tap on each answer for a miss's usage (and an answer's text). One per policy generation; the writer outlives it.
 */
public final class AccessLog implements ExchangeObserver {

    private final LineWriter writer;
    private final boolean includeText;
    private final SensitiveDataDetector detector;
    private final Ticker ticker;

    /**
     * @param includeText add {@code body} and {@code answer}, each string redacted by {@code detector}
     * @param ticker the clock of the lines for requests refused before they became exchanges
     */
    public AccessLog(LineWriter writer, boolean includeText, SensitiveDataDetector detector, Ticker ticker) {
        this.writer = writer;
        this.includeText = includeText;
        this.detector = detector;
        this.ticker = ticker;
    }

    @Override
    public void started(Exchange x) {
        x.addTap(new AccessLogTap(x.record(), UsageTail.of(x), x.answer(), includeText));
    }

    @Override
    public void refused(int status, String requestId, String reason, String tenant) {
        String time = Instant.ofEpochMilli(ticker.wallMillis()).toString();
        writer.offer(LogLine.of(Json.line(160, out -> {
            out.writeStartObject();
            out.writeStringField("time", time);
            out.writeStringField("type", "access");
            if (requestId != null) {
                out.writeStringField("request_id", requestId);
            }
            if (tenant != null) {
                out.writeStringField("tenant", tenant);
            }
            out.writeNumberField("status", status);
            out.writeStringField("cache", "error");
            out.writeStringField("reason", reason);
            out.writeEndObject();
        })));
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        if (!includeText) {
            writer.offer(LogLine.of(Json.line(512, out -> {
                out.writeStartObject();
                AccessLine.facts(x, status, nanos, out);
                out.writeEndObject();
            })));
            return;
        }
        TokenBuffer facts = new TokenBuffer(Json.MAPPER, false);
        try {
            facts.writeStartObject();
            AccessLine.facts(x, status, nanos, facts);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory: only a bug gets here
        }
        JsonNode body = x.parsed() == null ? null : x.parsed().body(); // read-only once parsed
        byte[] answer = x.record().answerBody();
        Dialect dialect = x.endpoint() == null ? null : x.endpoint().dialect();
        writer.offer(() -> Json.line(4096, out -> {
            facts.serialize(out);
            if (body != null) {
                out.writeFieldName("body");
                RedactedJson.write(body, detector, out);
            }
            if (answer != null) {
                out.writeStringField("answer", detector.redact(AnswerText.of(dialect, answer)));
            }
            out.writeEndObject();
        }));
    }
}
