package io.cachegate.gateway.relay;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Which headers cross the proxy: hop-by-hop headers (RFC 9110 section 7.6.1) never do. */
final class ForwardedHeaders {

    private static final Set<AsciiString> HOP_BY_HOP = Set.of(
            HttpHeaderNames.CONNECTION, AsciiString.cached("keep-alive"), HttpHeaderNames.PROXY_AUTHENTICATE,
            HttpHeaderNames.PROXY_AUTHORIZATION, HttpHeaderNames.TE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, AsciiString.cached("proxy-connection"));

    /** Request headers the gateway sets itself. */
    private static final Set<AsciiString> REQUEST_OWN = Set.of(
            HttpHeaderNames.HOST, HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.EXPECT);

    private ForwardedHeaders() {
    }

    /** Copies end-to-end request headers; {@code dropAuthorization} when the client's key is the gateway's, not the backend's. */
    static void copyRequestHeaders(HttpHeaders from, HttpHeaders to, boolean dropAuthorization) {
        Set<String> named = namedByConnection(from);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            AsciiString name = AsciiString.of(h.getKey()).toLowerCase();
            if (HOP_BY_HOP.contains(name) || REQUEST_OWN.contains(name) || named.contains(name.toString())) {
                continue;
            }
            if (dropAuthorization && name.contentEquals(HttpHeaderNames.AUTHORIZATION)) {
                continue;
            }
            to.add(name, h.getValue());
        }
    }

    /**
     * Copies end-to-end response headers. Transfer-Encoding is kept: the body is relayed piece by
     * piece exactly as framed upstream, and Netty's encoder re-frames it for the client.
     */
    static void copyResponseHeaders(HttpHeaders from, HttpHeaders to) {
        Set<String> named = namedByConnection(from);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            AsciiString name = AsciiString.of(h.getKey()).toLowerCase();
            boolean hop = HOP_BY_HOP.contains(name) && !name.contentEquals(HttpHeaderNames.TRANSFER_ENCODING);
            if (hop || named.contains(name.toString())) {
                continue;
            }
            to.add(name, h.getValue());
        }
    }

    private static Set<String> namedByConnection(HttpHeaders headers) {
        List<String> values = headers.getAll(HttpHeaderNames.CONNECTION);
        if (values.isEmpty()) {
            return Set.of();
        }
        HashSet<String> names = new HashSet<>();
        for (String value : values) {
            for (String token : value.split(",")) {
                String t = token.trim().toLowerCase(Locale.ROOT);
                if (!t.isEmpty() && !t.equals("close") && !t.equals("keep-alive")) {
                    names.add(t);
                }
            }
        }
        return names;
    }
}
