package io.cachegate.gateway.request;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * Parses an OpenAI request body strictly (400 with the offending field, 405 for another method). Other
 * {@code /v1} paths pass through unparsed, and uncached, only when {@code server.passthrough} lists the path and
 * method: anything else is 404 and never reaches the backend, which would be called with the operator's API key.
 * A byte-identical repeat of a recent body takes its parse from the {@link BodyMemo} (the fast path), with the
 * facts later stages derived from it ({@link BodyFacts}).
 */
public final class ParseStage implements Stage {

    private final OpenAiRequestParser parser;
    private final ServerSettings server;
    private final BodyMemo memo;

    /** One per policy generation: its memo of bodies starts empty. */
    public ParseStage(OpenAiRequestParser parser, ServerSettings server) {
        this(parser, server, BodyMemo.MAX_WEIGHT);
    }

    ParseStage(OpenAiRequestParser parser, ServerSettings server, long memoWeight) {
        this.parser = parser;
        this.server = server;
        this.memo = new BodyMemo(memoWeight);
    }

    @Override
    public void handle(Exchange x, Next next) {
        HeadRules.method(x.endpoint(), x.request().method(), x.request().uri(), server);
        if (x.endpoint() != Endpoint.PASSTHROUGH) {
            HeadRules.contentType(x.endpoint(), x.header(HttpHeaderNames.CONTENT_TYPE));
            Endpoint endpoint = x.endpoint();
            BodyFacts facts = memo.facts(endpoint, ByteBufUtil.getBytes(x.request().content()),
                    bytes -> parser.parse(endpoint, bytes));
            x.set(BodyFacts.KEY, facts);
            x.parsed(facts.parsed());
        }
        next.proceed(x);
    }
}
