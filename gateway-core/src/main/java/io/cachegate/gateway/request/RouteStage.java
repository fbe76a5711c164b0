package io.cachegate.gateway.request;

import io.cachegate.config.ResolvedRoute;
import io.cachegate.config.RouteTable;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.netty.buffer.ByteBufUtil;

/**
 * Route: the first route of the policy matching the path, model and tenant gives the backend, traffic class and
 * cache rules (404 {@code model_not_found} when none does). A pass-through request is routed by its JSON body's
 * model when it has one.
 */
public final class RouteStage implements Stage {

    private final RouteTable routes;
    private final OpenAiRequestParser parser;

    public RouteStage(RouteTable routes, OpenAiRequestParser parser) {
        this.routes = routes;
        this.parser = parser;
    }

    @Override
    public void handle(Exchange x, Next next) {
        String model = x.parsed() != null ? x.parsed().model() : modelIfAny(x);
        String uri = x.request().uri();
        int q = uri.indexOf('?');
        ResolvedRoute route = routes.resolve(q < 0 ? uri : uri.substring(0, q), model, x.tenant())
                .orElseThrow(() -> new ApiException(ErrorKind.MODEL_NOT_FOUND,
                        "The model '" + model + "' does not exist or no route serves it", "model"));
        x.route(route);
        next.proceed(x);
    }

    private String modelIfAny(Exchange x) {
        if (!x.request().content().isReadable()) {
            return "";
        }
        try {
            var model = parser.parseObject(ByteBufUtil.getBytes(x.request().content())).get("model");
            return model != null && model.isTextual() ? model.textValue() : "";
        } catch (ApiException notJson) {
            return "";
        }
    }
}
