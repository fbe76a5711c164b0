package io.cachegate.gateway.relay;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.telemetry.trace.Traces;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.net.URI;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which headers cross the proxy: hop-by-hop headers (RFC 9110 section 7.6.1) never do, and neither do a backend's
 * headers about itself or the operator's account with it.
 */
public final class ForwardedHeaders {

    /**
     * Headers of the copies made here: every name is one the client's or the backend's decoder already checked, or
     * one of our constants, so checking names again on each copy is wasted work; values are still checked.
     */
    private static final HttpHeadersFactory COPIED = DefaultHttpHeadersFactory.headersFactory()
            .withNameValidation(false);

    private static final Set<AsciiString> HOP_BY_HOP = Set.of(
            HttpHeaderNames.CONNECTION, AsciiString.cached("keep-alive"), HttpHeaderNames.PROXY_AUTHENTICATE,
            HttpHeaderNames.PROXY_AUTHORIZATION, HttpHeaderNames.TE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, AsciiString.cached("proxy-connection"));

    /**
     * Response headers that describe the backend, not the answer: its software ({@code server}), clock, cookies
     * and protocol hints for its own host, and the operator's account ({@code openai-organization}, and every
     * {@code x-ratelimit-*}: a hosted API's remaining requests and tokens for the whole account). A tenant is
     * told its own limits by the gateway or nothing.
     */
    private static final Set<AsciiString> BACKEND_OWN = Set.of(
            HttpHeaderNames.SERVER, HttpHeaderNames.DATE, HttpHeaderNames.SET_COOKIE, AsciiString.cached("alt-svc"),
            AsciiString.cached("strict-transport-security"), AsciiString.cached("openai-organization"),
            AsciiString.cached("openai-project"));

    private static final AsciiString RATE_LIMIT_PREFIX = AsciiString.cached("x-ratelimit-");

    /** Request headers the gateway sets itself. */
    private static final Set<AsciiString> REQUEST_OWN = Set.of(
            HttpHeaderNames.HOST, HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.EXPECT);

    private ForwardedHeaders() {
    }

    /**
     * The request as one replica receives it: the client's body (shared, retained), its end-to-end headers, the
     * replica's Host, our request id, and the backend's own key when it has one. A traced request's {@code
     * traceparent} names this attempt's span; an untraced one's is the client's own, passed through.
     *
     * @param model the model the replica is asked for, for the attempt's span
     */
    static FullHttpRequest upstreamRequest(Exchange x, URI url, String model, boolean replaceAuthorization,
                                           Optional<String> backendApiKey) {
        FullHttpRequest request = x.request();
        FullHttpRequest out = toReplica(request, request.content().retainedDuplicate(), url, x.requestId(),
                replaceAuthorization, backendApiKey);
        Traces.of(x).upstreamCall(url, model, out.headers());
        return out;
    }

    /**
     * A copy of the client's request for the gateway's own call to a replica (an audit): its body copied, so it
     * outlives the exchange, and its own request id.
     */
    public static FullHttpRequest copyForReplica(FullHttpRequest request, URI url, String requestId,
                                                 boolean replaceAuthorization, Optional<String> backendApiKey) {
        return toReplica(request, Unpooled.copiedBuffer(request.content()), url, requestId, replaceAuthorization,
                backendApiKey);
    }

    private static FullHttpRequest toReplica(FullHttpRequest request, ByteBuf body, URI url, String requestId,
                                             boolean replaceAuthorization, Optional<String> backendApiKey) {
        FullHttpRequest out = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, request.method(), request.uri(), body,
                COPIED, DefaultHttpHeadersFactory.trailersFactory());
        HttpHeaders headers = out.headers();
        copyRequestHeaders(request.headers(), headers, replaceAuthorization);
        headers.set(HttpHeaderNames.HOST, url.getPort() > 0 ? url.getHost() + ":" + url.getPort() : url.getHost());
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        headers.set(GatewayHeaders.X_REQUEST_ID, requestId);
        backendApiKey.ifPresent(key -> headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + key));
        return out;
    }

    /** The head the client is sent for a backend's answer: its end-to-end headers plus where the answer came from. */
    static HttpResponse clientHead(HttpResponse upstream, Exchange x, String servedModel, long upstreamNanos,
                                   long totalNanos) {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, upstream.status(), COPIED);
        HttpHeaders headers = response.headers();
        copyResponseHeaders(upstream.headers(), headers);
        if (!HttpUtil.isContentLengthSet(response) && !HttpUtil.isTransferEncodingChunked(response)) {
            HttpUtil.setTransferEncodingChunked(response, true); // a close-delimited upstream body
        }
        headers.set(GatewayHeaders.X_REQUEST_ID, x.requestId())
                .set(GatewayHeaders.X_CACHE, x.xCache())
                .set(GatewayHeaders.X_CACHEGATE_MODEL, servedModel)
                .set(GatewayHeaders.SERVER_TIMING, timing(x.record(), upstreamNanos, totalNanos));
        if (!x.keepAlive()) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    /** What the gateway spent its time on before the answer: the lookups that ran, the upstream call, the total. */
    private static StringBuilder timing(ExchangeRecord record, long upstreamNanos, long totalNanos) {
        StringBuilder timing = new StringBuilder(96);
        if (record.cacheLookupNanos() >= 0) {
            GatewayHeaders.appendTiming(timing, "cache", record.cacheLookupNanos());
        }
        if (record.embedNanos() >= 0) {
            GatewayHeaders.appendTiming(timing, "embed", record.embedNanos());
            GatewayHeaders.appendTiming(timing, "search", record.searchNanos());
        }
        GatewayHeaders.appendTiming(timing, "upstream", upstreamNanos);
        GatewayHeaders.appendTiming(timing, "total", totalNanos);
        return timing;
    }

    static void copyRequestHeaders(HttpHeaders from, HttpHeaders to, boolean dropAuthorization) {
        Set<AsciiString> named = namedByConnection(from);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            AsciiString name = AsciiString.of(h.getKey()).toLowerCase();
            if (HOP_BY_HOP.contains(name) || REQUEST_OWN.contains(name) || named.contains(name)) {
                continue;
            }
            if (dropAuthorization && name.contentEquals(HttpHeaderNames.AUTHORIZATION)) {
                continue;
            }
            to.add(name, h.getValue());
        }
    }

    /**
     * Copies end-to-end response headers, less the backend's own. Transfer-Encoding is kept: the body is relayed
     * piece by piece exactly as framed upstream, and Netty's encoder re-frames it for the client.
     */
    static void copyResponseHeaders(HttpHeaders from, HttpHeaders to) {
        Set<AsciiString> named = namedByConnection(from);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            AsciiString name = AsciiString.of(h.getKey()).toLowerCase();
            boolean hop = HOP_BY_HOP.contains(name) && !name.contentEquals(HttpHeaderNames.TRANSFER_ENCODING);
            if (hop || named.contains(name) || BACKEND_OWN.contains(name) || name.startsWith(RATE_LIMIT_PREFIX)) {
                continue;
            }
            to.add(name, h.getValue());
        }
    }

    /** Header names the Connection header lists (hop-by-hop too), lower-case, as the names they are checked against. */
    private static Set<AsciiString> namedByConnection(HttpHeaders headers) {
        List<String> values = headers.getAll(HttpHeaderNames.CONNECTION);
        if (values.isEmpty()) {
            return Set.of();
        }
        HashSet<AsciiString> names = new HashSet<>();
        for (String value : values) {
            for (String token : value.split(",")) {
                String t = token.trim().toLowerCase(Locale.ROOT);
                if (!t.isEmpty() && !t.equals("close") && !t.equals("keep-alive")) {
                    names.add(AsciiString.of(t));
                }
            }
        }
        return names;
    }
}
