package io.cachegate.gateway.request;

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
 * {@code /v1} paths pass through unparsed, and uncached.
 */
public final class ParseStage implements Stage {

    private final OpenAiRequestParser parser;

    public ParseStage(OpenAiRequestParser parser) {
        this.parser = parser;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (x.endpoint() != Endpoint.PASSTHROUGH) {
            if (!x.request().method().equals(HttpMethod.POST)) {
                throw new ApiException(ErrorKind.METHOD_NOT_ALLOWED,
                        "Method " + x.request().method() + " is not allowed here; use " + HttpMethod.POST);
            }
            x.parsed(parser.parse(x.endpoint(), ByteBufUtil.getBytes(x.request().content())));
        }
        next.proceed(x);
    }
}
