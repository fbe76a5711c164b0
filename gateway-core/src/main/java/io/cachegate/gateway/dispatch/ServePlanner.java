package io.cachegate.gateway.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.admission.ClassResolver;
import io.cachegate.admission.TenantClasses;
import io.cachegate.admission.TokenEstimator;
import io.cachegate.config.Policy;
import io.cachegate.config.Route;
import io.cachegate.config.Tenant;
import io.cachegate.config.TrafficClass;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.routing.FallbackResolver;
import io.cachegate.routing.ModelTarget;
import io.cachegate.routing.RoutingRequest;
import io.cachegate.routing.ServeReason;
import io.cachegate.routing.ServeTarget;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Decides where a request goes and what it costs: its traffic class ({@code X-Priority} if the tenant may, else
 * the route's, else the tenant's default), the route's backend or its fallback (primary down, or the class
 * degrades in overload, or the prompt was too long for the primary's model), and its token cost. A request moved
 * to another model has that model put in its body, and its answer's taps are told, so the cache files the answer
 * under the model that gave it.
 */
public final class ServePlanner {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Backends backends;
    private final GatewayMetrics metrics;
    private final ClassResolver classes;
    private final Map<String, TrafficClass> classSettings;
    private final Map<String, TenantClasses> tenantClasses;
    private final Map<Integer, FallbackResolver> fallbacks;
    private final TokenEstimator estimate = TokenEstimator.heuristic();
    /** Routes that count prompt tokens with a tokenizer, by route index. */
    private final Map<Integer, TokenEstimator> routeTokenizers;

    public ServePlanner(Policy policy, Backends backends, GatewayMetrics metrics) {
        this.backends = backends;
        this.metrics = metrics;
        List<String> names = List.copyOf(policy.classes().keySet());
        String defaultClass = names.contains("interactive") || names.isEmpty() ? "interactive" : names.get(0);
        this.classes = new ClassResolver(names.isEmpty() ? List.of("interactive") : names, defaultClass);
        this.classSettings = policy.classes();
        Map<String, TenantClasses> tenants = new HashMap<>();
        for (Tenant t : policy.tenants()) {
            tenants.put(t.id(), new TenantClasses(Set.copyOf(t.classes()), t.defaultClass()));
        }
        this.tenantClasses = Map.copyOf(tenants);
        Map<Integer, FallbackResolver> resolvers = new HashMap<>();
        for (Route route : policy.routes()) {
            Optional<ModelTarget> fallback = route.fallback().map(b -> route.fallbackModel().isPresent()
                    ? ModelTarget.of(b, route.fallbackModel().get()) : ModelTarget.of(b));
            resolvers.put(route.index(), new FallbackResolver(route.backend().map(ModelTarget::of)
                    .orElse(ModelTarget.of("")), fallback));
        }
        this.fallbacks = Map.copyOf(resolvers);
        Map<Integer, TokenEstimator> counts = new HashMap<>();
        Map<String, TokenEstimator> loaded = new HashMap<>(); // one tokenizer per file, shared by its routes
        for (Route route : policy.routes()) {
            route.tokenizer().ifPresent(path -> counts.put(route.index(),
                    loaded.computeIfAbsent(path, p -> TokenizerCount.load(Path.of(p)))));
        }
        this.routeTokenizers = Map.copyOf(counts);
    }

    public Backends backends() {
        return backends;
    }

    String trafficClass(Exchange x) {
        return classes.resolve(Optional.ofNullable(x.header(ClassResolver.HEADER)),
                Optional.ofNullable(tenantClasses.get(x.tenant())), Optional.of(x.route().route().trafficClass()));
    }

    /** The backend the route names (or the first serving the model). */
    BackendDispatch primary(Exchange x) {
        return backends.get(x.route().backend().name());
    }

    /**
     * Where {@code x} goes; {@link ServeReason#UNAVAILABLE} when neither the primary nor a fallback is up. A
     * request sent to a fallback is moved there (its body names the fallback's model).
     */
    ServePlan plan(Exchange x, BackendDispatch primary, String trafficClass) {
        String model = x.model();
        ServeTarget target = target(x, primary, trafficClass, model);
        if (target.reason() == ServeReason.UNAVAILABLE) {
            return new ServePlan(primary, target, model, RoutingRequest.of(0));
        }
        BackendDispatch serving = backends.get(target.backend());
        if (target.fallback()) {
            metrics.fallback(target.reason().name().toLowerCase(Locale.ROOT));
            moveTo(x, target, model);
        }
        String prompt = x.parsed() == null ? "" : x.parsed().promptText();
        long cost = cost(x, prompt);
        // Hashed here, once: a queued request is offered to the replicas again on every release, under
        // admission's lock, and must not re-hash a long prompt each time.
        RoutingRequest routing = serving.prefixAffinity()
                ? RoutingRequest.withBlocks(cost, serving.replicas().prefixHashes(target.model() + "\n" + prompt))
                : RoutingRequest.of(cost);
        return new ServePlan(serving, target, model, routing);
    }

    /**
     * The backend rejected the prompt as longer than its model's context: the route's fallback, once, when it is a
     * different model that is up; the request is moved there. Empty when there is none.
     */
    public Optional<ServePlan> afterContextLengthError(Exchange x, ServePlan failed) {
        Optional<ServeTarget> next = fallbacks.get(x.route().route().index()).afterError(failed.target(),
                failed.requestedModel(), 400, "context_length_exceeded",
                name -> backends.get(name).replicas().allDown());
        if (next.isEmpty()) {
            return Optional.empty();
        }
        metrics.fallback("context_length");
        moveTo(x, next.get(), failed.requestedModel());
        return Optional.of(new ServePlan(backends.get(next.get().backend()), next.get(), failed.requestedModel(),
                RoutingRequest.of(failed.routing().tokenCost())));
    }

    private ServeTarget target(Exchange x, BackendDispatch primary, String trafficClass, String model) {
        FallbackResolver resolver = fallbacks.get(x.route().route().index());
        TrafficClass cls = classSettings.get(trafficClass);
        boolean mayDegrade = cls != null && cls.mayDegrade();
        boolean degradeNow = primary.admission().isPresent() && primary.admission().get().shouldDegrade(trafficClass);
        if (resolver == null || resolver.fallback().isEmpty()) {
            return new ServeTarget(primary.name(), model, primary.replicas().allDown()
                    ? ServeReason.UNAVAILABLE : ServeReason.PRIMARY);
        }
        // The route may name no backend (the first serving the model): the resolver then judges the resolved one.
        FallbackResolver judged = resolver.primary().backend().isEmpty()
                ? new FallbackResolver(ModelTarget.of(primary.name()), resolver.fallback()) : resolver;
        return judged.choose(model, name -> backends.get(name).replicas().allDown(), mayDegrade, degradeNow);
    }

    /** Its answer is not the requested model's: filed under the model that answers, never under the request's key. */
    private static void moveTo(Exchange x, ServeTarget target, String requestedModel) {
        x.taps().onFallback(target.backend(), target.model().isEmpty() ? requestedModel : target.model());
        if (x.parsed() != null && !target.model().equals(requestedModel)) {
            x.replaceRequest(withModel(x.request(), x.parsed().body(), target.model()));
        }
    }

    /** Prompt estimate plus max_tokens (or the route's default): what the request may cost the backend. */
    private long cost(Exchange x, String prompt) {
        long defaultMax = x.route().route().defaultMaxTokens();
        if (x.parsed() == null) {
            return defaultMax;
        }
        ObjectNode body = x.parsed().body();
        JsonNode max = body.has("max_completion_tokens") ? body.get("max_completion_tokens")
                : body.has("max_output_tokens") ? body.get("max_output_tokens") : body.get("max_tokens");
        OptionalLong maxTokens = max != null && max.canConvertToLong() ? OptionalLong.of(max.asLong()) : OptionalLong.empty();
        return routeTokenizers.getOrDefault(x.route().route().index(), estimate).cost(prompt, maxTokens, defaultMax);
    }

    /** The request with another {@code model}: the fallback's. */
    private static FullHttpRequest withModel(FullHttpRequest request, ObjectNode body, String model) {
        try {
            byte[] bytes = JSON.writeValueAsBytes(body.deepCopy().put("model", model));
            return request.replace(Unpooled.wrappedBuffer(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
