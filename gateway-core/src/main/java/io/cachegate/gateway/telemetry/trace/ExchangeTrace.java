package io.cachegate.gateway.telemetry.trace;

import io.cachegate.cache.exact.OriginSpan;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.ResponseTap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The trace of one traced exchange: its SERVER span, the stages' child spans, and the CLIENT span of each upstream
 * attempt, which it follows as a {@link ResponseTap} (first byte, end). Every span of the exchange is timed by one
 * clock, the exchange's ticker anchored at its start (wall time then, monotonic after), as the SDK does per trace, so
 * children placed from measured durations line up with the rest.
 */
final class ExchangeTrace implements RequestTrace, ResponseTap {

    private static final TextMapSetter<HttpHeaders> SETTER = (headers, name, value) -> headers.set(name, value);
    private static final String W3C_TRACEPARENT = "traceparent";
    private static final String W3C_TRACESTATE = "tracestate";

    private final Exchange x;
    private final Tracer tracer;
    /** The wall time of the exchange's start tick ({@link Exchange#startNanos}): every span's time is read from it. */
    private final long anchorEpochNanos;
    private final Span server;
    private final Context context;
    private Span upstream;
    private long attempts;
    private boolean tapped;

    ExchangeTrace(Exchange x, Tracer tracer, long anchorEpochNanos, Span server) {
        this.x = x;
        this.tracer = tracer;
        this.anchorEpochNanos = anchorEpochNanos;
        this.server = server;
        this.context = Context.root().with(server);
    }

    /**
     * Now, in epoch nanoseconds, on this trace's clock: the exchange's ticker, as the stages' stamps are, so a span
     * timed now and one from the stamps are ordered as they happened (a second monotonic clock anchored a little
     * later than the exchange's start put an upstream call ~0.1 ms before the queue it left, under load).
     */
    long now() {
        return epoch(x.ticker().nanos());
    }

    @Override
    public StageSpan start(String name) {
        if (!server.isRecording()) {
            return StageSpan.NONE; // sampled out: nothing of it is exported, so build nothing
        }
        long now = now();
        Span span = tracer.spanBuilder(name).setParent(context).setStartTimestamp(now, TimeUnit.NANOSECONDS).startSpan();
        return new OtelStageSpan(this, span);
    }

    /** Links the request's span to the span that produced the answer it serves (a hit's entry, a leader's call). */
    private void link(OriginSpan origin) {
        if (origin != null) {
            server.addLink(SpanContext.createFromRemoteParent(origin.traceId(), origin.spanId(), TraceFlags.getSampled(),
                    TraceState.getDefault()), Attributes.of(SpanAttributes.LINK, "origin"));
        }
    }

    /** A tick of the exchange's ticker, in epoch nanoseconds on this trace's clock. */
    private long epoch(long tick) {
        return anchorEpochNanos + (tick - x.startNanos());
    }

    /** A child span of {@code parent} begun at a measured tick; the caller ends it. */
    private Span child(Context parent, String name, long fromTick, String failure) {
        Span span = tracer.spanBuilder(name).setParent(parent).setStartTimestamp(epoch(fromTick), TimeUnit.NANOSECONDS)
                .startSpan();
        if (failure != null) {
            span.setStatus(StatusCode.ERROR, failure);
            span.setAttribute(ErrorAttributes.ERROR_TYPE, failure);
        }
        return span;
    }

    /**
     * The stages' spans, from the record: the store lookup, the semantic lookup with its embed and search, and every
     * stage that held the request (a queue, a wait) or answered it, from the chain's stamps.
     */
    private void stageSpans(ExchangeRecord record, int status) {
        if (record.cacheLookupStartNanos() >= 0) {
            long start = record.cacheLookupStartNanos();
            child(context, "cache.exact.lookup", start,
                    record.exactLookup() == LookupStatus.ERROR ? "store_unavailable" : null)
                    .end(epoch(start + record.cacheLookupNanos()), TimeUnit.NANOSECONDS);
        }
        if (record.semanticStartNanos() >= 0) {
            long start = record.semanticStartNanos();
            long end = Math.max(start, record.semanticEndNanos());
            Span lookup = child(context, "cache.semantic.lookup", start,
                    record.semanticLookup() == LookupStatus.ERROR ? "fail_open" : null);
            if (!Double.isNaN(record.similarity())) {
                lookup.setAttribute(SpanAttributes.SIMILARITY, record.similarity());
            }
            Context inside = context.with(lookup);
            long embedEnd = start + record.embedNanos();
            child(inside, "cache.semantic.embed", start, null).end(epoch(embedEnd), TimeUnit.NANOSECONDS);
            child(inside, "cache.semantic.search", embedEnd, null)
                    .end(epoch(embedEnd + Math.max(0, record.searchNanos())), TimeUnit.NANOSECONDS);
            lookup.end(epoch(end), TimeUnit.NANOSECONDS);
        }
        record.stages().forEach((name, spanName, entered, left, held, answered) -> {
            if (spanName != null && (held || answered)) {
                Span span = child(context, spanName, entered, failure(spanName, record, status, answered));
                if (record.trafficClass() != null && spanName.equals("admission.queue")) {
                    span.setAttribute(SpanAttributes.CLASS, record.trafficClass());
                }
                span.end(epoch(left), TimeUnit.NANOSECONDS);
            }
        });
    }

    /** Why a stage's span failed: the error it answered with, or the fleet wait's outcome; null when it did not. */
    private static String failure(String spanName, ExchangeRecord record, int status, boolean answered) {
        if (answered && status >= 400) {
            return record.reason() != null ? record.reason() : status == 499 ? "cancelled" : Integer.toString(status);
        }
        String fleet = record.fleetOutcome();
        if (fleet != null && "cache.coalesce.fleet.wait".equals(spanName)
                && !(fleet.equals("hit") || fleet.equals("led") || fleet.equals("joined"))) {
            return fleet;
        }
        return null;
    }

    @Override
    public OriginSpan origin() {
        SpanContext span = server.getSpanContext();
        return span.isSampled() ? new OriginSpan(span.getTraceId(), span.getSpanId()) : null;
    }

    @Override
    public void upstreamCall(URI replica, String model, HttpHeaders upstreamHeaders) {
        long now = now();
        if (upstream != null) {
            endUpstream(StatusCode.ERROR, "retried"); // the previous attempt failed before its answer was relayed
        }
        if (!tapped) {
            tapped = true;
            x.addTap(this);
        }
        String operation = operation(x.endpoint());
        upstream = tracer.spanBuilder(operation == null ? x.request().method().name() : operation + " " + model)
                .setParent(context).setSpanKind(SpanKind.CLIENT).setStartTimestamp(now, TimeUnit.NANOSECONDS)
                .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, x.request().method().name())
                .setAttribute(ServerAttributes.SERVER_ADDRESS, replica.getHost())
                .setAttribute(ServerAttributes.SERVER_PORT, (long) port(replica))
                .setAttribute(SpanAttributes.ATTEMPT, ++attempts)
                .startSpan();
        if (operation != null) {
            upstream.setAttribute(GenAiIncubatingAttributes.GEN_AI_OPERATION_NAME, operation);
            upstream.setAttribute(GenAiIncubatingAttributes.GEN_AI_REQUEST_MODEL, model);
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_RESPONSE_MODEL, model); // the last attempt's model answers
        }
        if (x.record().backend() != null) {
            upstream.setAttribute(SpanAttributes.BACKEND, x.record().backend());
        }
        // The backend's parent is this attempt, not the client's span: replace what the client sent.
        upstreamHeaders.remove(W3C_TRACEPARENT);
        upstreamHeaders.remove(W3C_TRACESTATE);
        W3CTraceContextPropagator.getInstance().inject(context.with(upstream), upstreamHeaders, SETTER);
    }

    @Override
    public void onHead(HttpResponse head) {
        if (upstream != null) {
            upstream.addEvent("first_byte", now(), TimeUnit.NANOSECONDS);
            upstream.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, (long) head.status().code());
            if (head.status().code() >= 400) {
                upstream.setAttribute(ErrorAttributes.ERROR_TYPE, Integer.toString(head.status().code()));
                upstream.setStatus(StatusCode.ERROR);
            }
        }
    }

    @Override
    public void onContent(ByteBuf content) {
    }

    @Override
    public void onComplete() {
        if (upstream != null) {
            endUpstream(StatusCode.UNSET, null);
        }
    }

    @Override
    public void onAbort() {
        if (upstream != null) {
            endUpstream(StatusCode.ERROR, "aborted");
        }
    }

    private void endUpstream(StatusCode status, String description) {
        if (status == StatusCode.ERROR) {
            upstream.setStatus(status, description);
        }
        upstream.end(now(), TimeUnit.NANOSECONDS);
        upstream = null;
    }

    /** The exchange finished: what the stages learned goes on the server span, which ends. */
    void finished(int status) {
        if (!server.isRecording()) {
            server.end(now(), TimeUnit.NANOSECONDS);
            return;
        }
        String method = x.request().method().name();
        Endpoint endpoint = x.endpoint();
        if (endpoint != null && endpoint.path() != null) {
            server.updateName(method + " " + endpoint.path());
            server.setAttribute(HttpAttributes.HTTP_ROUTE, endpoint.path());
        }
        server.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, (long) status);
        if (status >= 500) {
            server.setStatus(StatusCode.ERROR);
            server.setAttribute(ErrorAttributes.ERROR_TYPE, Integer.toString(status));
        }
        String operation = operation(endpoint);
        if (operation != null) {
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_OPERATION_NAME, operation);
        }
        if (!x.model().isEmpty()) {
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_REQUEST_MODEL, x.model());
        }
        ExchangeRecord record = x.record();
        stageSpans(record, status);
        link(record.answerOrigin());
        String outcome = status >= 400 ? "error" : GatewayHeaders.outcome(x.xCache()); // as the request metrics say
        server.setAttribute(SpanAttributes.CACHE_OUTCOME, outcome);
        if (record.layer() != null) {
            server.setAttribute(SpanAttributes.CACHE_LAYER, record.layer());
            // A hit's entry is filed under the model that generated it, which is the model asked for.
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_RESPONSE_MODEL, x.model());
        }
        if (!Double.isNaN(record.similarity())) {
            server.setAttribute(SpanAttributes.SIMILARITY, record.similarity());
        }
        if (record.promptTokens() >= 0) {
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS, (long) record.promptTokens());
        }
        if (record.completionTokens() >= 0) {
            server.setAttribute(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS, (long) record.completionTokens());
        }
        server.setAttribute(SpanAttributes.TENANT, x.tenant());
        server.setAttribute(SpanAttributes.ROUTE, x.routeLabel());
        setIfKnown(SpanAttributes.CLASS, record.trafficClass());
        setIfKnown(SpanAttributes.REASON, record.reason());
        setIfKnown(SpanAttributes.ORIGIN_REQUEST_ID, record.originRequestId());
        setIfKnown(SpanAttributes.BACKEND, record.backend());
        setIfKnown(SpanAttributes.KV_BLOCKS, record.kvBlocks());
        server.end(now(), TimeUnit.NANOSECONDS);
    }

    private void setIfKnown(AttributeKey<String> key, String value) {
        if (value != null) {
            server.setAttribute(key, value);
        }
    }

    private static int port(URI url) {
        return url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    /** The GenAI operation of an endpoint ({@code gen_ai.operation.name}); null for one that is not a model call. */
    static String operation(Endpoint endpoint) {
        if (endpoint == null) {
            return null;
        }
        // A switch, not a call on the endpoint's Dialect: these are OpenTelemetry's names, and the cache module
        // that holds the dialects does not depend on OpenTelemetry.
        return switch (endpoint) {
            case CHAT_COMPLETIONS, RESPONSES -> GenAiIncubatingAttributes.GenAiOperationNameIncubatingValues.CHAT;
            case COMPLETIONS -> GenAiIncubatingAttributes.GenAiOperationNameIncubatingValues.TEXT_COMPLETION;
            case EMBEDDINGS -> GenAiIncubatingAttributes.GenAiOperationNameIncubatingValues.EMBEDDINGS;
            default -> null;
        };
    }
}
