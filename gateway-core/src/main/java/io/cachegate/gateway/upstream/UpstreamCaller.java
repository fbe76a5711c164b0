package io.cachegate.gateway.upstream;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import java.net.URI;

/**
 * Starts one call to a backend URL: the relay's only view of the upstream side. {@link UpstreamClient} calls over
 * pooled connections; tests script the backend's answers without sockets.
 */
@FunctionalInterface
public interface UpstreamCaller {

    /**
     * Sends {@code request} (whose ownership passes to the call) to {@code url}; the listener is called on
     * {@code loop}, which must be the caller's event loop.
     */
    UpstreamCall call(EventLoop loop, URI url, UpstreamSettings settings, FullHttpRequest request,
                      UpstreamListener listener);
}
