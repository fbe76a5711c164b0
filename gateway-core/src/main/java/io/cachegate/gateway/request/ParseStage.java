package io.cachegate.gateway.request;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;

/**
 * Parses an OpenAI request body strictly (400 with the offending field, 405 for another method). Other
 * {@code /v1} paths pass through unparsed, and uncached, only when {@code server.passthrough} lists the path and
 * method: anything else is 404 and never reaches the backend, which would be called with the operator's API key.
 */
public final class ParseStage implements Stage {

    private final OpenAiRequestParser parser;
    private final ServerSettings server;

    public ParseStage(OpenAiRequestParser parser, ServerSettings server) {
        this.parser = parser;
        this.server = server;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (x.endpoint() == Endpoint.PASSTHROUGH) {
            String uri = x.request().uri();
            int q = uri.indexOf('?');
            String path = q < 0 ? uri : uri.substring(0, q);
            String method = x.request().method().name();
            if (!server.passthroughFor(path).map(p -> p.allows(method)).orElse(false)) {
                throw new ApiException(ErrorKind.NOT_FOUND, "Unknown path " + method + " " + path
                        + "; other /v1 paths are forwarded only when server.passthrough lists them");
            }
        } else {
            if (!x.request().method().equals(HttpMethod.POST)) {
                throw new ApiException(ErrorKind.METHOD_NOT_ALLOWED,
                        "Method " + x.request().method() + " is not allowed here; use " + HttpMethod.POST);
            }
            x.parsed(parser.parse(x.endpoint(), ByteBufUtil.getBytes(x.request().content())));
        }
        next.proceed(x);
    }
}
