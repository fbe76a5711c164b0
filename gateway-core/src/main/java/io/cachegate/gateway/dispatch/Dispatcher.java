package io.cachegate.gateway.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.admission.Admission;
import io.cachegate.admission.AdmissionController;
import io.cachegate.admission.AdmissionRequest;
import io.cachegate.admission.ClassResolver;
import io.cachegate.admission.RejectReason;
import io.cachegate.admission.TenantClasses;
import io.cachegate.admission.TokenEstimator;
import io.cachegate.config.Policy;
import io.cachegate.config.Route;
import io.cachegate.config.Tenant;
import io.cachegate.config.TrafficClass;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.ClientResponses;
import io.cachegate.gateway.proxy.ProxyExchange;
import io.cachegate.gateway.proxy.ProxyServices;
import io.cachegate.gateway.proxy.ProxyTarget;
import io.cachegate.routing.FallbackResolver;
import io.cachegate.routing.ModelTarget;
import io.cachegate.routing.ReplicaLease;
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
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Sends a request that no cache answered: resolves its traffic class and token cost, picks the route's backend
 * or its fallback (primary down, or the class degrades in overload), passes admission control when it is on
 * (admitted, queued, or turned away with {@code Retry-After}), and starts the upstream exchange on the
 * reserved replica. Runs on the client's event loop and never waits there: a queued request resumes when
 * admission completes its ticket.
 */
public final class Dispatcher {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ProxyServices services;
    private final Backends backends;
    private final ClassResolver classes;
    private final Map<String, TrafficClass> classSettings;
    private final Map<String, TenantClasses> tenantClasses;
    private final Map<Integer, FallbackResolver> fallbacks;
    private final TokenEstimator estimate = TokenEstimator.heuristic();
    /** Routes that count prompt tokens with a tokenizer, by route index. */
    private final Map<Integer, TokenEstimator> routeTokenizers;

    public Dispatcher(ProxyServices services, Backends backends) {
        this.services = services;
        this.backends = backends;
        Policy policy = services.policy();
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

    /** Dispatches {@code d}, which hands its request over; the returned handle cancels whatever stage it is in. */
    public ActiveExchange dispatch(DispatchRequest d) {
        GatewayMetrics metrics = services.metrics();
        String trafficClass = classes.resolve(Optional.ofNullable(d.request().headers().get(ClassResolver.HEADER)),
                Optional.ofNullable(tenantClasses.get(d.tenant())), Optional.of(d.route().route().trafficClass()));
        String model = d.parsed() != null ? d.parsed().model() : "";
        BackendDispatch primary = backends.get(d.route().backend().name());
        ServeTarget target = serveTarget(d, primary, trafficClass, model);
        if (target.reason() == ServeReason.UNAVAILABLE) {
            // An ejected replica gets its next chance after the backend's eject_for: come back then.
            return refuse(d, ErrorKind.OVERLOADED, "Every replica of backend '" + primary.name()
                    + "' is down and the route has no fallback that is up; try again later",
                    Math.max(1, primary.backend().health().ejectFor().toSeconds()));
        }
        BackendDispatch serving = backends.get(target.backend());
        FullHttpRequest request = d.request();
        if (target.fallback()) {
            metrics.fallback(target.reason().name().toLowerCase(Locale.ROOT));
            // Its answer is not the requested model's: filed under the model that answers, never the request's key.
            d.tap().onFallback(target.backend(), target.model().isEmpty() ? model : target.model());
            if (d.parsed() != null && !target.model().equals(model)) {
                request = withModel(request, d.parsed().body(), target.model());
            }
        }
        String prompt = d.parsed() == null ? "" : promptText(d.parsed().input());
        long cost = cost(d, prompt);
        // Hashed here, once: a queued request is offered to the replicas again on every release, under
        // admission's lock, and must not re-hash a long prompt each time.
        RoutingRequest routing = serving.prefixAffinity()
                ? RoutingRequest.withBlocks(cost, serving.replicas().prefixHashes(target.model() + "\n" + prompt))
                : RoutingRequest.of(cost);
        Served served = new Served(target, model);
        DispatchRequest sent = d.withRequest(request);
        if (serving.admission().isEmpty()) {
            return start(sent, served, routing, Optional.empty(), sent.onDone());
        }
        AdmissionController admission = serving.admission().get();
        Admission outcome = admission.offer(new AdmissionRequest(trafficClass, cost, d.tenant(), routing));
        if (outcome instanceof Admission.Admitted admitted) {
            return startAdmitted(sent, served, routing, admitted);
        }
        if (outcome instanceof Admission.Rejected rejected) {
            return reject(sent, rejected);
        }
        return new QueuedDispatch(sent, ((Admission.Queued) outcome).ticket(),
                a -> startAdmitted(sent, served, routing, a), r -> reject(sent, r)).await();
    }

    private ServeTarget serveTarget(DispatchRequest d, BackendDispatch primary, String trafficClass, String model) {
        FallbackResolver resolver = fallbacks.get(d.route().route().index());
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

    private ActiveExchange startAdmitted(DispatchRequest d, Served served, RoutingRequest routing,
                                         Admission.Admitted admitted) {
        ReplicaLease replica = ((Backends.ReplicaGateLease) admitted.lease().granted()).replica();
        Runnable onDone = () -> {
            admitted.lease().release();
            d.onDone().run();
        };
        return start(d, served, routing, Optional.of(replica), onDone);
    }

    private ActiveExchange start(DispatchRequest d, Served served, RoutingRequest routing,
                                 Optional<ReplicaLease> lease, Runnable onDone) {
        BackendDispatch serving = backends.get(served.target().backend());
        ProxyTarget target = new ProxyTarget(d.routeLabel(), serving.replicas(), routing, lease,
                services.settings(serving.name()),
                serving.retry(), services.policy().authRequired(), serving.backend().apiKey(), served.model(),
                () -> tooLong(d, served, routing, onDone));
        ProxyExchange exchange = new ProxyExchange(d.ctx(), d.request(), d.requestId(), d.startNanos(), d.keepAlive(),
                d.endpoint(), target, services.upstream(), services.metrics(), onDone, d.xCache(), d.tap());
        d.onStarted().accept(exchange::cancel);
        exchange.start();
        return exchange::cancel;
    }

    /**
     * The backend rejected the prompt as longer than its model's context: the route's fallback, once, when it is a
     * different model that is up. Sent without queueing: the request already waited its turn once.
     */
    private Optional<Function<FullHttpRequest, ActiveExchange>> tooLong(DispatchRequest d, Served served,
                                                                        RoutingRequest routing, Runnable onDone) {
        Optional<ServeTarget> next = fallbacks.get(d.route().route().index()).afterError(served.target(),
                served.requested(), 400, "context_length_exceeded", name -> backends.get(name).replicas().allDown());
        return next.map(target -> request -> {
            services.metrics().fallback("context_length");
            d.tap().onFallback(target.backend(), target.model());
            FullHttpRequest moved = d.parsed() != null && !target.model().equals(served.requested())
                    ? withModel(request, d.parsed().body(), target.model()) : request;
            return start(d.withRequest(moved), new Served(target, served.requested()),
                    RoutingRequest.of(routing.tokenCost()), Optional.empty(), onDone);
        });
    }

    /** Where a request goes and the model it named; {@link #model()} is what answers. */
    private record Served(ServeTarget target, String requested) {
        String model() {
            return target.model().isEmpty() ? requested : target.model();
        }
    }

    private ActiveExchange reject(DispatchRequest d, Admission.Rejected rejected) {
        if (rejected.reason() == RejectReason.CANCELLED) {
            return () -> { }; // the client left; nobody to answer
        }
        return refuse(d, errorKind(rejected.reason()), rejected.message(), rejected.retryAfterSeconds());
    }

    /** The error a rejection becomes; its status is the reason's {@link RejectReason#httpStatus()}. */
    static ErrorKind errorKind(RejectReason reason) {
        return switch (reason) {
            case QUEUE_FULL -> ErrorKind.QUEUE_FULL;
            case WAIT_TOO_LONG -> ErrorKind.QUEUE_WAIT_TOO_LONG;
            case OVERLOAD_PAUSED -> ErrorKind.CLASS_PAUSED;
            case QUEUE_TIMEOUT -> ErrorKind.QUEUE_TIMEOUT;
            case CANCELLED -> throw new IllegalArgumentException("a cancelled request gets no answer");
        };
    }

    /** Answers at once with an error and {@code Retry-After}; the request never reaches a backend. */
    private ActiveExchange refuse(DispatchRequest d, ErrorKind kind, String message, long retryAfterSeconds) {
        GatewayMetrics metrics = services.metrics();
        d.tap().onAbort();
        d.request().release();
        metrics.requestStarted();
        metrics.requestFinished(d.routeLabel(), d.endpoint(), kind.status(), System.nanoTime() - d.startNanos());
        ClientResponses.retryLater(d.ctx(), kind, message, d.requestId(), d.keepAlive(), retryAfterSeconds);
        d.onDone().run();
        return () -> { };
    }

    /** Prompt estimate plus max_tokens (or the route's default): what the request may cost the backend. */
    private long cost(DispatchRequest d, String prompt) {
        long defaultMax = d.route().route().defaultMaxTokens();
        if (d.parsed() == null) {
            return defaultMax;
        }
        ObjectNode body = d.parsed().body();
        JsonNode max = body.has("max_completion_tokens") ? body.get("max_completion_tokens") : body.get("max_tokens");
        OptionalLong maxTokens = max != null && max.canConvertToLong() ? OptionalLong.of(max.asLong()) : OptionalLong.empty();
        return routeTokenizers.getOrDefault(d.route().route().index(), estimate)
                .cost(prompt, maxTokens, defaultMax);
    }

    /**
     * The text the model reads: message contents (and text parts), a prompt, or an input, joined by newlines.
     * The chat template adds a few tokens per message, which the over-estimate and max_tokens absorb. Earlier
     * turns come first, so a growing conversation keeps them as a common prefix for prefix affinity.
     */
    static String promptText(JsonNode input) {
        if (input == null) {
            return "";
        }
        if (input.isTextual()) {
            return input.textValue();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode item : input) {
            JsonNode content = item.isObject() ? item.get("content") : item;
            if (content == null) {
                continue;
            }
            if (content.isTextual()) {
                text.append(content.textValue()).append('\n');
            } else if (content.isArray()) {
                for (JsonNode part : content) {
                    if (part.path("text").isTextual()) {
                        text.append(part.path("text").textValue()).append('\n');
                    }
                }
            }
        }
        return text.toString();
    }

    /** The request with another {@code model}: the fallback's. The original request is released. */
    private static FullHttpRequest withModel(FullHttpRequest request, ObjectNode body, String model) {
        try {
            byte[] bytes = JSON.writeValueAsBytes(body.deepCopy().put("model", model));
            FullHttpRequest moved = request.replace(Unpooled.wrappedBuffer(bytes));
            request.release();
            return moved;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
