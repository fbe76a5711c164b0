package io.cachegate.gateway.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Policy;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.dispatch.BackendDispatch;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.ClientResponses;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.upstream.BackendProbe;
import io.cachegate.gateway.upstream.BufferedAnswer;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.cachegate.routing.CircuitState;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code GET /v1/models}: asks every backend (a replica not known to be down) for its models and answers with
 * their union (first backend wins on a duplicate id). Backends that fail are left out; if all fail, 502. Other
 * endpoints go on.
 */
public final class ModelListStage implements Stage {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Policy policy;
    private final Backends backends;
    private final UpstreamClient client;
    private final AtomicInteger next = new AtomicInteger();

    public ModelListStage(Policy policy, Backends backends, UpstreamClient client) {
        this.policy = policy;
        this.backends = backends;
        this.client = client;
    }

    @Override
    public void handle(Exchange x, Next next) {
        if (x.endpoint() != Endpoint.MODELS) {
            next.proceed(x);
            return;
        }
        HeadRules.method(Endpoint.MODELS, x.request().method(), x.request().uri(), policy.server());
        List<BackendDispatch> all = policy.backends().stream().map(b -> backends.get(b.name())).toList();
        BufferedAnswer.Result[] results = new BufferedAnswer.Result[all.size()];
        int[] expected = {all.size()};
        for (int i = 0; i < all.size(); i++) {
            int index = i;
            BackendDispatch backend = all.get(i);
            BackendProbe.fetchModels(client, x.ctx().channel().eventLoop(), pick(backend),
                    backend.upstream(), backend.backend().apiKey(), r -> {
                        results[index] = r;
                        if (--expected[0] == 0 && !x.isDone()) {
                            answer(x, results);
                        }
                    });
        }
    }

    /** Round robin over the replicas not known to be down (over all of them when every one is). */
    private URI pick(BackendDispatch backend) {
        List<URI> urls = backend.replicas().replicas();
        int start = Math.floorMod(next.getAndIncrement(), urls.size());
        for (int i = 0; i < urls.size(); i++) {
            URI candidate = urls.get((start + i) % urls.size());
            if (backend.replicas().state(candidate) != CircuitState.OPEN) {
                return candidate;
            }
        }
        return urls.get(start);
    }

    private static void answer(Exchange x, BufferedAnswer.Result[] results) {
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
        if (!any) {
            x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "No backend answered with its model list", null);
            return;
        }
        ObjectNode list = JSON.createObjectNode().put("object", "list");
        list.set("data", data);
        x.answer().whole(ClientResponses.document(HttpResponseStatus.OK, toBytes(list), x.requestId(), x.keepAlive()),
                Answer.Source.GATEWAY);
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
