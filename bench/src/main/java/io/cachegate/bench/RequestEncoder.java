package io.cachegate.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.util.Map;

/**
 * Turns a {@link BenchRequest} into a Netty request: the body bytes are wrapped, not copied, and
 * the fixed headers (Host, the user's) were validated once here, so each request only copies them.
 */
final class RequestEncoder {

    private static final HttpHeadersFactory UNVALIDATED = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    private final String pathPrefix;
    private final HttpHeaders fixed;
    private final boolean userContentType;
    private final boolean userAccept;

    RequestEncoder(URI target, Map<String, String> headers) {
        String path = target.getRawPath();
        this.pathPrefix = path == null || path.isEmpty() || "/".equals(path) ? ""
                : path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        HttpHeaders base = DefaultHttpHeadersFactory.headersFactory().newHeaders();
        int port = target.getPort();
        base.set(HttpHeaderNames.HOST, target.getHost() + (port < 0 || port == 80 ? "" : ":" + port));
        headers.forEach(base::set);
        this.fixed = base;
        this.userContentType = base.contains(HttpHeaderNames.CONTENT_TYPE);
        this.userAccept = base.contains(HttpHeaderNames.ACCEPT);
    }

    /** A new request owning one reference; the codec releases it once written. */
    FullHttpRequest encode(BenchRequest request) {
        byte[] body = request.body();
        ByteBuf content = body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        HttpHeaders headers = UNVALIDATED.newHeaders().add(fixed);
        if (body.length > 0 || !"GET".equals(request.method())) {
            headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        }
        if (body.length > 0 && !userContentType) {
            headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        }
        if (!userAccept) {
            headers.set(HttpHeaderNames.ACCEPT,
                    request.streaming() ? HttpHeaderValues.TEXT_EVENT_STREAM : HttpHeaderValues.APPLICATION_JSON);
        }
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request.method()),
                pathPrefix + request.path(), content, headers, EmptyHttpHeaders.INSTANCE);
    }
}
