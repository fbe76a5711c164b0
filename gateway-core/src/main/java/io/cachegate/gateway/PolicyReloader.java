package io.cachegate.gateway;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.config.AdminExposure;
import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.admin.AdminAudit;
import io.cachegate.gateway.admin.AdminView;
import io.cachegate.gateway.admin.BackendHealth;
import io.cachegate.gateway.admin.ReloadOutcome;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.dispatch.BackendDispatch;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.metrics.AdmissionMetrics;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.quota.Quotas;
import io.cachegate.gateway.server.BodyBudget;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.server.RequestPaths;
import io.cachegate.gateway.telemetry.Telemetry;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the generation a policy describes and swaps it in when its {@link PolicyWatch} hands over a changed policy
 * file (the file changed, {@code SIGHUP} or {@code POST /admin/reload}). A new policy is validated in full first; an
 * invalid one is refused and the running one stays. Requests already started finish under the generation they
 * started in; a replaced generation's admission queues keep being ticked until they are empty. Reloads run on the
 * watch's thread, never on an event loop.
 */
final class PolicyReloader implements AdminView, PolicyWatch.Target, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PolicyReloader.class);
    /** A recording a coalesced answer keeps for its followers is bounded by this. */
    private static final long MAX_SHARED_BYTES = 32L * 1024 * 1024;

    private final EventLoopGroup group;
    private final GatewayMetrics metrics;
    private final UpstreamClient upstream;
    private final Ticker ticker;
    private final ModelVersions versions;
    private final CacheStore store;
    private final SemanticCache semantic;
    private final Coalescer coalescer;
    private final Quotas quotas;
    private final Telemetry telemetry;
    private final AdminAudit audit;
    private final Optional<PolicyWatch> watch;
    private final List<Backends> retired = new CopyOnWriteArrayList<>();
    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
    private final AtomicLong generationNumber = new AtomicLong();
    private final RequestPaths paths;
    private volatile Generation current;

    /**
     * @param file the policy file to watch and reload, or empty for a policy that has none (the embedded default)
     * @param fleet the leases of coalescing across gateways, or null
     */
    PolicyReloader(Policy policy, Optional<Path> file, EventLoopGroup group, GatewayMetrics metrics,
                   UpstreamClient upstream, Ticker ticker, ModelVersions versions, CacheStore store,
                   SemanticCache semantic, Telemetry telemetry, FlightLeases fleet) {
        this.coalescer = new Coalescer(MAX_SHARED_BYTES, fleet, ticker, group);
        this.group = group;
        this.telemetry = telemetry;
        this.audit = new AdminAudit(telemetry.audit());
        this.metrics = metrics;
        this.upstream = upstream;
        this.ticker = ticker;
        this.versions = versions;
        this.store = store;
        this.semantic = semantic;
        // Shared or local by the exact store, a restart-only setting: built once, like the store.
        this.quotas = Quotas.forStore(policy.cache().exact(), metrics, ticker);
        this.current = build(policy, null);
        // Request bodies are held on the heap while they arrive (BodyIntake): auto budgets follow its size.
        this.paths = new RequestPaths(current.path(), quotas,
                new BodyBudget(metrics.registry(), Runtime.getRuntime().maxMemory()));
        this.watch = file.map(f -> new PolicyWatch(f, PolicyLoader.withEnvironment(System::getenv), this, audit));
        MeterRegistry registry = metrics.registry();
        Gauge.builder("cachegate.policy.generation", generationNumber, AtomicLong::get)
                .description("The policy generation serving new requests (1 at start, +1 per applied reload)")
                .register(registry);
    }

    RequestPaths paths() {
        return paths;
    }

    /** The coalescer every policy generation shares. */
    Coalescer coalescer() {
        return coalescer;
    }

    Generation current() {
        return current;
    }

    /** Starts the health probes and, with a policy file, the watch. */
    void start() {
        current.health().start();
        watch.ifPresent(PolicyWatch::start);
    }

    /** Expires queued requests and re-evaluates overload in the current generation and the ones still draining. */
    void tick() {
        current.backends().tick();
        for (Backends old : retired) {
            old.tick();
            if (idle(old)) {
                retired.remove(old);
            }
        }
    }

    @Override
    public ProxyServices services() {
        return current.services();
    }

    @Override
    public BackendHealth health() {
        return current.health();
    }

    @Override
    public boolean draining() {
        return paths.draining();
    }

    @Override
    public CompletableFuture<ReloadOutcome> reload() {
        if (watch.isEmpty()) {
            return CompletableFuture.completedFuture(count(new ReloadOutcome("unavailable", current.number(),
                    List.of("the gateway runs the embedded default policy: there is no file to reload"), List.of())));
        }
        return watch.get().reload();
    }

    /** Reloads on {@code SIGHUP}, like {@code POST /admin/reload}. */
    void reloadOnSignal() {
        watch.ifPresent(PolicyWatch::reloadOnSignal);
    }

    @Override
    public long generation() {
        return current.number();
    }

    @Override
    public ReloadOutcome rejected(PolicyException e) {
        log.warn("policy reload refused, the running policy (generation {}) stays:\n{}", current.number(),
                e.getMessage());
        return count(new ReloadOutcome("rejected", current.number(), List.of(e.getMessage().split("\n")), List.of()));
    }

    /** Runs on the reload thread. */
    @Override
    public ReloadOutcome offer(Policy next, boolean sameBytes) {
        // The file passed the check on its own; the admin listener stays where it is until a restart, so the
        // check is made again with the running listener's address and the file's token.
        Optional<String> exposed = AdminExposure.problem(PolicyDiff.keepRestartOnly(current.policy(), next).server());
        if (exposed.isPresent()) {
            log.warn("policy reload refused: it leaves the running admin listener without a token");
            return count(new ReloadOutcome("rejected", current.number(),
                    List.of(next.source() + ": server.admin_host: " + exposed.get()), List.of()));
        }
        if (sameBytes && next.equals(current.policy())) {
            return count(new ReloadOutcome("unchanged", current.number(), List.of(), List.of()));
        }
        return count(apply(next));
    }

    /** Swaps in the generation {@code next} describes. Runs on the reload thread. */
    ReloadOutcome apply(Policy next) {
        Generation old = current;
        List<String> restart = PolicyDiff.restartRequired(old.policy(), next);
        Generation fresh = build(PolicyDiff.keepRestartOnly(old.policy(), next), old);
        current = fresh;
        paths.swap(fresh.path());
        if (fresh.backends() != old.backends()) {
            old.health().close();
            fresh.health().start();
            retired.add(old.backends());
            forgetRemovedUrls(old.policy(), fresh.policy());
        }
        if (!restart.isEmpty()) {
            log.warn("policy generation {}: these changes need a restart and were left as they were: {}",
                    fresh.number(), restart);
        }
        log.info("policy generation {} applied from {}", fresh.number(), next.source());
        return new ReloadOutcome("applied", fresh.number(), List.of(), restart);
    }

    /**
     * A generation for {@code policy}. The backends (replica sets with their breakers and leases, admission queues)
     * and their health probes carry over when the backends, classes and admission sections are unchanged, so a
     * reload of tenants, keys or routes leaves them exactly as they were.
     */
    private Generation build(Policy policy, Generation previous) {
        ProxyServices services = new ProxyServices(policy, upstream, metrics, ticker, telemetry.observer(policy));
        Backends backends;
        BackendHealth health;
        if (previous != null && sameBackends(previous.policy(), policy)) {
            backends = previous.backends();
            health = previous.health();
        } else {
            if (previous != null) {
                AdmissionMetrics.removeGauges(metrics.registry()); // bound to the old controllers
            }
            backends = new Backends(policy, metrics, ticker);
            health = new BackendHealth(services, backends, versions, group, healthInterval(policy));
            if (previous != null) {
                health.seed(previous.health());
            }
        }
        quotas.configure(policy.tenants());
        long number = generationNumber.incrementAndGet();
        RequestPaths.Current path = new RequestPaths.Current(number, services,
                RequestPath.assemble(services, store, semantic, new CacheKeys(policy, versions), coalescer,
                        quotas, backends));
        return new Generation(number, policy, services, backends, health, path);
    }

    private static boolean sameBackends(Policy a, Policy b) {
        // Breakers count failing tenants only when there are several (PolicyMappings.replicaSet).
        return a.backends().equals(b.backends()) && a.classes().equals(b.classes())
                && a.admission().equals(b.admission()) && (a.tenants().size() > 1) == (b.tenants().size() > 1);
    }

    /** One probe round serves every backend: at the shortest interval any of them asks for. */
    static long healthInterval(Policy policy) {
        return policy.backends().stream().mapToLong(b -> b.health().interval().toMillis()).min().orElse(5_000);
    }

    private void forgetRemovedUrls(Policy was, Policy is) {
        Set<String> kept = new HashSet<>();
        for (Backend b : is.backends()) {
            b.urls().forEach(url -> kept.add(b.name() + " " + url));
        }
        for (Backend b : was.backends()) {
            b.urls().stream().filter(url -> !kept.contains(b.name() + " " + url))
                    .forEach(url -> versions.forget(b.name(), url));
        }
    }

    private static boolean idle(Backends backends) {
        for (BackendDispatch d : backends.all()) {
            if (d.admission().isPresent()
                    && d.admission().get().snapshot().classes().stream().anyMatch(c -> c.queued() > 0)) {
                return false;
            }
        }
        return true;
    }

    private ReloadOutcome count(ReloadOutcome outcome) {
        outcomes.computeIfAbsent(outcome.outcome(), o -> Counter.builder("cachegate.policy.reloads")
                .description("Policy reloads, by outcome (applied, unchanged, rejected, unavailable)")
                .tag("outcome", o).register(metrics.registry())).increment();
        return outcome;
    }

    @Override
    public void close() {
        watch.ifPresent(PolicyWatch::close);
        current.health().close();
        quotas.close();
    }
}
