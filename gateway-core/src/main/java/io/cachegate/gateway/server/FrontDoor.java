package io.cachegate.gateway.server;

import io.cachegate.admission.ClassResolver;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The front door: refuses requests that could smuggle a second request past us or be read differently by a proxy
 * in front or the backend behind. The decoder ({@link StrictServerCodec}: Netty's, with header validation on and
 * duplicate Content-Lengths refused, plus obs-fold) already fails Content-Length with Transfer-Encoding, two
 * Content-Lengths, control characters in header names or values, bare LF line ends, folded headers and bad chunk
 * sizes; this handler turns those failures into answers and adds the
 * checks the decoder does not make (Host, single-valued headers sent twice, the request target, the transfer coding). A refused
 * request becomes a {@link Refusal} answered in order by {@link ProxyRequestHandler}, and everything after it on
 * the connection is dropped: after a broken message the byte stream cannot be trusted for the next one.
 */
final class FrontDoor extends ChannelInboundHandlerAdapter {

    /** Header fields per request at most (Apache httpd's LimitRequestFields default); no client needs more. */
    static final int MAX_HEADERS = 100;

    /**
     * Headers that take one value, not a list: sent twice, one reader (a proxy in front, the backend) could take the
     * first and another the last, so the request is refused instead of read one way. List headers (labels, tags,
     * Cache-Control) are read whole by {@code Exchange.listHeader}.
     */
    private static final List<AsciiString> SINGLE_VALUED = List.of(HttpHeaderNames.AUTHORIZATION,
            HttpHeaderNames.CONTENT_TYPE, GatewayHeaders.X_REQUEST_ID, GatewayHeaders.X_CACHE_CONTEXT,
            GatewayHeaders.X_CACHE_THRESHOLD, AsciiString.cached(ClassResolver.HEADER.toLowerCase(Locale.ROOT)));

    private boolean failed;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (failed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
            refuse(ctx, msg, decodeFailure(object.decoderResult(), msg instanceof HttpRequest));
            return;
        }
        if (msg instanceof LastHttpContent last && !last.trailingHeaders().isEmpty()) {
            refuse(ctx, msg, Refusal.closing(ErrorKind.INVALID_REQUEST, "Trailer fields are not accepted"));
            return;
        }
        if (msg instanceof HttpRequest request && request.headers().size() > MAX_HEADERS) {
            refuse(ctx, msg, Refusal.closing(ErrorKind.HEADERS_TOO_LARGE,
                    "More than " + MAX_HEADERS + " header fields"));
            return;
        }
        if (msg instanceof HttpRequest request) {
            String problem = problem(request);
            if (problem != null) {
                refuse(ctx, msg, Refusal.closing(ErrorKind.INVALID_REQUEST, problem));
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void refuse(ChannelHandlerContext ctx, Object msg, Refusal refusal) {
        failed = true;
        ReferenceCountUtil.release(msg);
        ctx.fireChannelRead(refusal);
    }

    private static Refusal decodeFailure(DecoderResult result, boolean head) {
        Throwable cause = result.cause();
        if (cause instanceof TooLongHttpHeaderException) {
            return Refusal.closing(ErrorKind.HEADERS_TOO_LARGE, "Request headers are too large");
        }
        if (cause instanceof TooLongHttpLineException) {
            return Refusal.closing(ErrorKind.URI_TOO_LONG, "Request line is too long");
        }
        return Refusal.closing(ErrorKind.INVALID_REQUEST, head ? "Malformed HTTP request" : "Malformed HTTP request body");
    }

    /** What is wrong with a request head the decoder accepted, or null. */
    static String problem(HttpRequest request) {
        // One pass over the headers counts what the checks below need: on every request, so no list per name.
        HttpHeaders headers = request.headers();
        int codings = 0;
        CharSequence coding = null;
        int hosts = 0;
        CharSequence host = null;
        int seen = 0; // a bit per SINGLE_VALUED name
        int repeated = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
                codings++;
                coding = h.getValue();
            } else if (HttpHeaderNames.HOST.contentEqualsIgnoreCase(name)) {
                hosts++;
                host = h.getValue();
            } else {
                for (int i = 0; i < SINGLE_VALUED.size(); i++) {
                    if (SINGLE_VALUED.get(i).contentEqualsIgnoreCase(name)) {
                        repeated |= seen & (1 << i);
                        seen |= 1 << i;
                        break;
                    }
                }
            }
        }
        if (codings > 1 || codings == 1 && !"chunked".equalsIgnoreCase(coding.toString().trim())) {
            return "Transfer-Encoding other than chunked is not accepted";
        }
        if (hosts > 1) {
            return "More than one Host header";
        }
        if (hosts == 0 && request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            return "Missing Host header";
        }
        if (hosts == 1 && !HeadSyntax.host(host.toString())) {
            return "The Host header is not a host name with an optional port";
        }
        for (int i = 0; i < SINGLE_VALUED.size(); i++) {
            if ((repeated & (1 << i)) != 0) {
                return "More than one " + SINGLE_VALUED.get(i) + " header: it takes one value";
            }
        }
        String uri = request.uri();
        if (!uri.startsWith("/")) {
            return "The request target must be a path starting with '/'";
        }
        if (hasDotSegment(uri)) {
            return "Dot segments ('.' or '..') are not allowed in the path";
        }
        return null;
    }

    /** True when a segment of the path (before any query) is {@code .} or {@code ..}, also percent-encoded. */
    static boolean hasDotSegment(String uri) {
        int end = uri.length();
        boolean maybe = false; // a path with neither '.' nor '%' has no dot segment: no segment is cut out to check
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
                break;
            }
            maybe |= c == '.' || c == '%';
        }
        if (!maybe) {
            return false;
        }
        int start = 1;
        while (start <= end) {
            int slash = uri.indexOf('/', start);
            int segmentEnd = slash < 0 || slash > end ? end : slash;
            String segment = uri.substring(start, segmentEnd).replace("%2e", ".").replace("%2E", ".");
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
            start = segmentEnd + 1;
        }
        return false;
    }
}
