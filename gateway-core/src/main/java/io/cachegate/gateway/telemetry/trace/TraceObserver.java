package io.cachegate.gateway.telemetry.trace;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Starts each exchange's SERVER span when the exchange starts, as a child of the client's W3C {@code traceparent}
 * when it sent one (whose sampling decision is kept), and ends it when the exchange finishes.
 */
final class TraceObserver implements ExchangeObserver {

    /** The methods HTTP semantic conventions name; any other is {@code _OTHER}, keeping the attribute bounded. */
    private static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT",
            "OPTIONS", "TRACE", "PATCH");

    static final TextMapGetter<HttpHeaders> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(HttpHeaders headers) {
            return headers.names();
        }

        @Override
        public String get(HttpHeaders headers, String name) {
            return headers == null ? null : headers.get(name);
        }
    };

    private final Tracer tracer;
    private final Clock clock;

    TraceObserver(Tracer tracer, Clock clock) {
        this.tracer = tracer;
        this.clock = clock;
    }

    @Override
    public void started(Exchange x) {
        HttpHeaders headers = x.request().headers();
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, GETTER);
        String method = x.request().method().name();
        String known = KNOWN_METHODS.contains(method) ? method : "_OTHER";
        // The wall time of the exchange's start tick: a span's time is its tick's distance from that start.
        long epochNanos = clock.now() - (x.ticker().nanos() - x.startNanos());
        // Named by its method now; by method and route once the endpoint is known (HTTP semantic conventions).
        SpanBuilder span = tracer.spanBuilder(known.equals("_OTHER") ? "HTTP" : known).setParent(parent)
                .setSpanKind(SpanKind.SERVER).setStartTimestamp(epochNanos, TimeUnit.NANOSECONDS)
                .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, known)
                .setAttribute(UrlAttributes.URL_PATH, path(x.request().uri()))
                .setAttribute(SpanAttributes.REQUEST_ID, x.requestId());
        host(span, headers.get(HttpHeaderNames.HOST));
        Span server = span.startSpan();
        x.record().traceId(server.getSpanContext().getTraceId()); // the access log's trace_id, sampled or not
        ExchangeTrace trace = new ExchangeTrace(x, tracer, epochNanos, server);
        x.set(Traces.KEY, trace);
        x.record().traceOrigin(trace.origin()); // stored with the answer this request generates, for its hits
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        if (x.get(Traces.KEY) instanceof ExchangeTrace trace) {
            trace.finished(status);
        }
    }

    private static String path(String uri) {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    /** {@code server.address} and {@code server.port} from the Host header, as HTTP server conventions say. */
    private static void host(SpanBuilder span, String host) {
        if (host == null || host.isEmpty()) {
            return;
        }
        int colon = host.lastIndexOf(':');
        if (colon > 0 && host.indexOf(']') < colon) {
            try {
                span.setAttribute(ServerAttributes.SERVER_PORT, Long.parseLong(host.substring(colon + 1)));
                host = host.substring(0, colon);
            } catch (NumberFormatException e) {
                return; // not a host:port the client could have meant
            }
        }
        span.setAttribute(ServerAttributes.SERVER_ADDRESS, host);
    }
}
