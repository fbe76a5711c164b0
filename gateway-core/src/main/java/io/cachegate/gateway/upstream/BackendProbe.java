package io.cachegate.gateway.upstream;

import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.util.Optional;
import java.util.function.Consumer;

/** The gateway's own small GET calls to a backend: its model list, which doubles as the health check. */
public final class BackendProbe {

    private static final int MAX_MODELS_BYTES = 4 * 1024 * 1024;

    private BackendProbe() {
    }

    /** GETs {@code /v1/models} from {@code url}; the result arrives on {@code loop}. */
    public static void fetchModels(UpstreamClient client, EventLoop loop, URI url, UpstreamSettings settings,
                                   Optional<String> apiKey, Consumer<BufferedAnswer.Result> onResult) {
        get(client, loop, url, "/v1/models", settings, apiKey, onResult);
    }

    /** GETs {@code path} (a health endpoint, vLLM's {@code /metrics}) from {@code url}, at most 4 MiB of answer. */
    public static void get(UpstreamClient client, EventLoop loop, URI url, String path, UpstreamSettings settings,
                           Optional<String> apiKey, Consumer<BufferedAnswer.Result> onResult) {
        FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path,
                Unpooled.EMPTY_BUFFER);
        get.headers().set(HttpHeaderNames.HOST, url.getPort() > 0 ? url.getHost() + ":" + url.getPort() : url.getHost())
                .set(HttpHeaderNames.ACCEPT, "application/json, text/plain")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        apiKey.ifPresent(key -> get.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + key));
        client.call(loop, url, settings, get, new BufferedAnswer(MAX_MODELS_BYTES, onResult));
    }
}
