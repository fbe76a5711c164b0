package io.cachegate.gateway.telemetry.log;

import com.fasterxml.jackson.core.JsonGenerator;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.telemetry.trace.Traces;
import java.io.IOException;
import java.time.Instant;

/**
 * The facts of one finished exchange as the access log's JSON fields, in a fixed order. A fact nobody learned is
 * left out, never written as null. Never the prompt, the answer or a header (the API key is one).
 */
final class AccessLine {

    private AccessLine() {
    }

    /** Writes the line's fields into an object {@code out} has started (and the caller ends). */
    static void facts(Exchange x, int status, long nanos, JsonGenerator out) throws IOException {
        ExchangeRecord r = x.record();
        out.writeStringField("time", Instant.ofEpochMilli(x.ticker().wallMillis()).toString());
        out.writeStringField("type", "access");
        out.writeStringField("request_id", x.requestId());
        String traceId = r.traceId() != null ? r.traceId() : Traces.clientTraceId(x.request().headers());
        string(out, "trace_id", traceId);
        out.writeStringField("tenant", x.tenant());
        if (x.route() != null) {
            out.writeStringField("route", x.routeLabel());
        }
        if (x.endpoint() != null) {
            out.writeStringField("endpoint", x.endpointName());
        }
        string(out, "model", x.model().isEmpty() ? null : x.model());
        string(out, "model_version", r.modelVersion());
        string(out, "class", r.trafficClass());
        out.writeNumberField("status", status);
        out.writeStringField("cache", status >= 400 ? "error" : GatewayHeaders.outcome(x.xCache()));
        string(out, "layer", r.layer());
        string(out, "stale_reason", r.staleCause());
        if (!Double.isNaN(r.similarity())) {
            out.writeNumberField("similarity", Math.round(r.similarity() * 10_000) / 10_000.0);
        }
        string(out, "origin_request_id", r.originRequestId());
        if (r.entryAgeMillis() >= 0) {
            out.writeNumberField("entry_age_ms", r.entryAgeMillis());
        }
        millis(out, "queue_wait_ms", r.queueWaitNanos());
        string(out, "backend", r.backend());
        string(out, "kv_blocks", r.kvBlocks());
        if (r.uncachedEstimate() >= 0) {
            out.writeNumberField("uncached_estimate", r.uncachedEstimate());
        }
        if (r.fallbackHop() > 0) {
            out.writeNumberField("fallback_hop", r.fallbackHop());
            string(out, "served_model", r.fallbackModel());
        }
        millis(out, "upstream_first_byte_ms", r.upstreamFirstByteNanos());
        millis(out, "upstream_ms", r.upstreamNanos());
        millis(out, "total_ms", nanos);
        if (r.promptTokens() >= 0) {
            out.writeNumberField("prompt_tokens", r.promptTokens());
        }
        if (r.completionTokens() >= 0) {
            out.writeNumberField("completion_tokens", r.completionTokens());
        }
        if (r.tokensSaved() > 0) {
            out.writeNumberField("tokens_saved", r.tokensSaved());
        }
        if (r.costSaved() > 0) {
            out.writeNumberField("cost_saved", r.costSaved());
        }
        if (r.latencySavedNanos() > 0) {
            millis(out, "latency_saved_ms", r.latencySavedNanos());
        }
        string(out, "reason", r.reason());
    }

    private static void string(JsonGenerator out, String field, String value) throws IOException {
        if (value != null) {
            out.writeStringField(field, value);
        }
    }

    /** Milliseconds to the microsecond; an unknown (negative) time is left out. */
    private static void millis(JsonGenerator out, String field, long nanos) throws IOException {
        if (nanos >= 0) {
            out.writeNumberField(field, Math.round(nanos / 1_000.0) / 1_000.0);
        }
    }
}
