package io.cachegate.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.ClientResponses;
import io.cachegate.gateway.proxy.ProxyServices;
import io.cachegate.gateway.upstream.BackendProbe;
import io.cachegate.gateway.upstream.BufferedAnswer;
import io.cachegate.routing.BackendPool;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /v1/models}: asks every backend for its models and answers with their union (first
 * backend wins on a duplicate id). Backends that fail are left out; if all fail, 502.
 */
final class ModelListExchange implements ActiveExchange {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ChannelHandlerContext ctx;
    private final ProxyServices services;
    private final String requestId;
    private final boolean keepAlive;
    private final long startNanos;
    private final Runnable onDone;
    private final List<BufferedAnswer.Result> results = new ArrayList<>();
    private int expected;
    private boolean done;

    ModelListExchange(ChannelHandlerContext ctx, ProxyServices services, String requestId, boolean keepAlive,
                      long startNanos, Runnable onDone) {
        this.ctx = ctx;
        this.services = services;
        this.requestId = requestId;
        this.keepAlive = keepAlive;
        this.startNanos = startNanos;
        this.onDone = onDone;
    }

    void start() {
        services.metrics().requestStarted();
        List<BackendPool> pools = new ArrayList<>();
        services.pools().forEach(pools::add);
        expected = pools.size();
        for (int i = 0; i < pools.size(); i++) {
            results.add(null);
        }
        for (int i = 0; i < pools.size(); i++) {
            int index = i;
            BackendPool pool = pools.get(i);
            BackendProbe.fetchModels(services.upstream(), ctx.channel().eventLoop(), pool.pick(),
                    services.settings(pool.backend().name()), pool.backend().apiKey(), r -> arrived(index, r));
        }
    }

    private void arrived(int index, BufferedAnswer.Result result) {
        results.set(index, result);
        if (--expected > 0 || done) {
            return;
        }
        ArrayNode data = JSON.createArrayNode();
        Set<String> seen = new HashSet<>();
        boolean any = false;
        for (BufferedAnswer.Result r : results) {
            JsonNode models = r.ok() ? parse(r.body()) : null;
            if (models == null || !models.path("data").isArray()) {
                continue;
            }
            any = true;
            for (JsonNode model : models.path("data")) {
                if (seen.add(model.path("id").asText())) {
                    data.add(model);
                }
            }
        }
        int status;
        if (any) {
            ObjectNode list = JSON.createObjectNode().put("object", "list");
            list.set("data", data);
            status = 200;
            ClientResponses.document(ctx, HttpResponseStatus.OK, toBytes(list), requestId, keepAlive);
        } else {
            status = ErrorKind.UPSTREAM_UNREACHABLE.status();
            ClientResponses.error(ctx, ErrorKind.UPSTREAM_UNREACHABLE, "No backend answered with its model list",
                    null, requestId, keepAlive);
        }
        finish(status);
    }

    @Override
    public void cancel() {
        finish(499);
    }

    private void finish(int status) {
        if (done) {
            return;
        }
        done = true;
        services.metrics().requestFinished("none", "models", status, System.nanoTime() - startNanos);
        onDone.run();
    }

    private static JsonNode parse(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static byte[] toBytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise a model list", e);
        }
    }
}
