package io.cachegate.gateway.dispatch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.admission.ClassResolver;
import io.cachegate.admission.TenantClasses;
import io.cachegate.admission.TokenEstimator;
import io.cachegate.config.Policy;
import io.cachegate.config.Route;
import io.cachegate.config.Tenant;
import io.cachegate.config.TrafficClass;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.UsageTail;
import io.cachegate.kv.BackendKvIndex;
import io.cachegate.kv.PromptTokens;
import io.cachegate.routing.FallbackResolver;
import io.cachegate.routing.KvFigures;
import io.cachegate.config.FallbackHop;
import io.cachegate.routing.PrefixHashes;
import io.cachegate.routing.RoutingRequest;
import io.cachegate.routing.ServeReason;
import io.cachegate.routing.ServeTarget;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Decides where a request goes and what it costs: its traffic class ({@code X-Priority} if the tenant may, else
 * the route's, else the tenant's default), the route's backend or a hop of its fallback chain (primary down, or the
 * class degrades in overload, or the prompt was too long for the model before), and its token cost. A request moved
 * to another model has that model put in its body, and its answer's taps are told, so the cache files the answer
 * under the model that gave it.
 */
public final class ServePlanner {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The prompt's tokens by the tokenizer of the backend named, from {@link #tokenizeAhead}. */
    private static final Exchange.Key<KvTokens> KV_TOKENS = Exchange.Key.named("dispatch.kv_tokens");

    private record KvTokens(String backend, int[] tokens) {
    }

    private final Backends backends;
    private final ClassResolver classes;
    private final Map<String, TrafficClass> classSettings;
    private final Map<String, TenantClasses> tenantClasses;
    private final Map<Integer, FallbackResolver> fallbacks;
    private final TokenEstimator estimate = TokenEstimator.heuristic();
    /** Routes that count prompt tokens with a tokenizer, by route index. */
    private final Map<Integer, TokenEstimator> routeTokenizers;

    public ServePlanner(Policy policy, Backends backends) {
        this.backends = backends;
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
            resolvers.put(route.index(), new FallbackResolver(route.backend().map(FallbackHop::of)
                    .orElse(FallbackHop.of("")), route.fallbacks()));
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
            moveTo(x, target, model, target.reason());
        }
        String prompt = x.parsed() == null ? "" : x.parsed().promptText();
        if (!serving.prefixAffinity()) {
            return new ServePlan(serving, target, model, RoutingRequest.of(cost(x, prompt)));
        }
        // Hashed here, once: a queued request is offered to the replicas again on every release, under
        // admission's lock, and must not re-hash a long prompt each time.
        String head = target.model() + "\n";
        PrefixHashes blocks = serving.replicas().prefixHashes(head + prompt);
        // The backend prefills only what its prefix cache does not hold: the cost counts the prompt after the
        // part the likeliest replica is expected to hold (admission-and-routing.md, "Cost in uncached tokens").
        Optional<KvFigures> kv = kvFigures(x, serving);
        if (kv.isPresent()) {
            // The engines' own record: each replica's uncached prompt tokens; the cost counts the smallest, the
            // replica kv_aware picks unless its load says otherwise.
            int fewest = Arrays.stream(kv.get().uncachedTokens()).min().orElse(0);
            return new ServePlan(serving, target, model,
                    RoutingRequest.withKv(completionCost(x, fewest), blocks, kv.get()));
        }
        int held = serving.replicas().expectedCachedChars(blocks) - head.length();
        String uncached = prompt.substring(Math.max(0, Math.min(prompt.length(), held)));
        long cost = cost(x, uncached);
        if (x.parsed() != null) {
            estimated(x, cost - completionCost(x, 0));
        }
        return new ServePlan(serving, target, model, RoutingRequest.withBlocks(cost, blocks));
    }

    /**
     * For a request whose route's backend is kv_aware with a tokenizer and events: its prompt as the engine's tokens,
     * computed on the tokenizing threads ({@link KvIndexes#tokenize}) — the event loop never tokenizes. Null when
     * there is nothing to wait for (not kv_aware, no tokenizer, no events yet, or the tokenizing queue is full: then
     * prefix affinity decides). Once it completes, {@link #keepTokens} on the exchange's loop, then {@link #plan}.
     */
    CompletableFuture<int[]> tokenizeAhead(Exchange x, BackendDispatch primary) {
        Optional<KvIndexes.Entry> kv = backends.kv().of(primary.name());
        if (kv.isEmpty() || kv.get().tokens().isEmpty() || !kv.get().index().live() || x.parsed() == null
                || x.get(KV_TOKENS) != null) {
            return null;
        }
        PromptTokens tokenizer = kv.get().tokens().get();
        OpenAiRequest request = x.parsed();
        return backends.kv().tokenize(() -> KvPrompts.tokens(tokenizer, request)).orElse(null);
    }

    /** Keeps {@code tokens}, {@code primary}'s tokenization of the prompt, for {@link #plan}; on the loop. */
    void keepTokens(Exchange x, BackendDispatch primary, int[] tokens) {
        x.set(KV_TOKENS, new KvTokens(primary.name(), tokens));
    }

    /**
     * For a kv_aware backend whose replicas' events have arrived and whose tokenizer turned the prompt into the
     * engine's tokens ({@link #tokenizeAhead}): those tokens matched against each replica's blocks, giving per
     * replica the prompt tokens it would prefill; the blocks each holds go to the access log and trace. Empty
     * otherwise (prefix affinity decides).
     */
    private Optional<KvFigures> kvFigures(Exchange x, BackendDispatch serving) {
        Optional<KvIndexes.Entry> kv = backends.kv().of(serving.name());
        KvTokens computed = x.get(KV_TOKENS);
        if (kv.isEmpty() || computed == null || !computed.backend().equals(serving.name())
                || !kv.get().index().live()) {
            return Optional.empty();
        }
        int[] tokens = computed.tokens();
        BackendKvIndex.Match match = kv.get().index().match(tokens);
        int[] uncached = new int[match.heldTokens().length];
        StringBuilder held = new StringBuilder();
        for (int i = 0; i < uncached.length; i++) {
            uncached[i] = Math.max(0, match.promptTokens() - match.heldTokens()[i]);
            held.append(i == 0 ? "" : ",").append(match.heldBlocks()[i]);
        }
        x.record().kvBlocks(held.append('/').append(match.promptBlocks()).toString());
        BackendKvIndex index = kv.get().index();
        return Optional.of(new KvFigures(uncached, replica -> {
            index.routed(replica, match.keys());
            estimated(x, uncached[replica]);
        }));
    }

    /**
     * Keeps the uncached prompt tokens admission charged, to be set against the backend's own count when its answer
     * says how many it found cached (metrics: cachegate_admission_uncached_estimate_*); asks for the answer's usage.
     */
    private static void estimated(Exchange x, long tokens) {
        x.record().uncachedEstimate((int) Math.min(Integer.MAX_VALUE, Math.max(0, tokens)));
        UsageTail.of(x);
    }

    /**
     * The backend rejected the prompt as longer than its model's context: the next hop of the route's fallback chain
     * that is up and asks another model; the request is moved there. Empty when the chain is spent.
     */
    public Optional<ServePlan> afterContextLengthError(Exchange x, ServePlan failed) {
        return moveOn(x, failed, ServeReason.CONTEXT_LENGTH);
    }

    /**
     * No replica of the serving backend took the connection (and no other replica was left to retry on): the next
     * hop of the chain that is up; the request is moved there. Empty when the chain is spent.
     */
    public Optional<ServePlan> afterUnreachable(Exchange x, ServePlan failed) {
        return moveOn(x, failed, ServeReason.PRIMARY_DOWN);
    }

    private Optional<ServePlan> moveOn(Exchange x, ServePlan failed, ServeReason reason) {
        Optional<ServeTarget> next = resolver(x, primary(x)).next(failed.target(), failed.requestedModel(), reason,
                name -> backends.get(name).replicas().allDown());
        if (next.isEmpty()) {
            return Optional.empty();
        }
        moveTo(x, next.get(), failed.requestedModel(), reason);
        return Optional.of(new ServePlan(backends.get(next.get().backend()), next.get(), failed.requestedModel(),
                RoutingRequest.of(failed.routing().tokenCost())));
    }

    private ServeTarget target(Exchange x, BackendDispatch primary, String trafficClass, String model) {
        FallbackResolver resolver = resolver(x, primary);
        TrafficClass cls = classSettings.get(trafficClass);
        boolean mayDegrade = cls != null && cls.mayDegrade();
        return resolver.choose(model, name -> backends.get(name).replicas().allDown(), mayDegrade,
                name -> degrades(backends.get(name), trafficClass));
    }

    /** The route's chain behind the backend the request resolved to (a route may name none: the first serving it). */
    private FallbackResolver resolver(Exchange x, BackendDispatch primary) {
        FallbackResolver resolver = fallbacks.get(x.route().route().index());
        if (resolver == null) {
            return new FallbackResolver(FallbackHop.of(primary.name()), List.of());
        }
        return resolver.primary().backend().isEmpty() ? resolver.withPrimary(FallbackHop.of(primary.name())) : resolver;
    }

    /** Admission on {@code backend} asks degradable requests of {@code trafficClass} to go elsewhere. */
    private static boolean degrades(BackendDispatch backend, String trafficClass) {
        return backend.admission().isPresent() && backend.admission().get().shouldDegrade(trafficClass);
    }

    /** Its answer is not the requested model's: filed under the model that answers, never under the request's key. */
    private static void moveTo(Exchange x, ServeTarget target, String requestedModel, ServeReason why) {
        String served = target.model().isEmpty() ? requestedModel : target.model();
        x.record().fallback(target.hop(), served, why.name().toLowerCase(Locale.ROOT));
        x.taps().onFallback(target.backend(), served);
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
        OptionalInt max = x.parsed().sampling().maxTokens(); // each API's own field, as its parser read it
        OptionalLong maxTokens = max.isPresent() ? OptionalLong.of(max.getAsInt()) : OptionalLong.empty();
        return routeTokenizers.getOrDefault(x.route().route().index(), estimate).cost(prompt, maxTokens, defaultMax);
    }

    /** {@code promptTokens} plus max_tokens (or the route's default). */
    private static long completionCost(Exchange x, long promptTokens) {
        long defaultMax = x.route().route().defaultMaxTokens();
        OptionalInt max = x.parsed().sampling().maxTokens();
        return promptTokens + (max.isPresent() && max.getAsInt() > 0 ? max.getAsInt() : defaultMax);
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
