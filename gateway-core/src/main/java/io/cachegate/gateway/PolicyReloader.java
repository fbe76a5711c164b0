package io.cachegate.gateway;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.PolicyReload;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.admin.AdminAudit;
import io.cachegate.gateway.admin.AdminView;
import io.cachegate.gateway.admin.BackendHealth;
import io.cachegate.gateway.admin.ReloadOutcome;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.dispatch.BackendDispatch;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.server.BodyBudget;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.server.RequestPaths;
import io.cachegate.gateway.telemetry.Telemetry;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.micrometer.core.instrument.Counter;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Swaps in the generation each changed policy describes, when its {@link PolicyWatch} hands one over (the file
 * changed, {@code SIGHUP} or {@code POST /admin/reload}), with the restart-only values of the running policy
 * ({@link PolicyReload}); a policy that fails its checks is refused and the running one stays. Requests already
 * started finish under the generation they started in; a replaced generation's admission queues keep being ticked
 * until they are empty. Its {@link GenerationBuilder} builds the generations; reloads run on the watch's thread,
 * never on an event loop.
 */
final class PolicyReloader implements AdminView, PolicyWatch.Target, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PolicyReloader.class);

    private final GatewayMetrics metrics;
    private final ModelVersions versions;
    private final GenerationBuilder generations;
    private final Optional<PolicyWatch> watch;
    private final List<Backends> retired = new CopyOnWriteArrayList<>();
    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
    private final RequestPaths paths;
    private volatile Generation current;

    /**
     * @param file the policy file to watch and reload, or empty for a policy that has none (the embedded default)
     * @param fleet the leases of coalescing across gateways, or null
     */
    PolicyReloader(Policy policy, Optional<Path> file, EventLoopGroup group, GatewayMetrics metrics,
                   UpstreamClient upstream, Ticker ticker, ModelVersions versions, CacheStore store,
                   SemanticCache semantic, Telemetry telemetry, FlightLeases fleet) {
        this.metrics = metrics;
        this.versions = versions;
        this.generations = new GenerationBuilder(policy, group, metrics, upstream, ticker, versions, store, semantic,
                telemetry, fleet);
        this.current = generations.build(policy, null);
        // Request bodies are held on the heap while they arrive (BodyIntake): auto budgets follow its size.
        this.paths = new RequestPaths(current.path(), generations.quotas(),
                new BodyBudget(metrics.registry(), Runtime.getRuntime().maxMemory()));
        AdminAudit audit = new AdminAudit(telemetry.audit());
        this.watch = file.map(f -> new PolicyWatch(f, PolicyLoader.withEnvironment(System::getenv), this, audit));
    }

    RequestPaths paths() {
        return paths;
    }

    /** The coalescer every policy generation shares. */
    Coalescer coalescer() {
        return generations.coalescer();
    }

    Generation current() {
        return current;
    }

    /** Starts the health probes and, with a policy file, the watch. */
    void start() {
        current.health().start();
        current.backends().kv().start();
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
        return count(refused(e));
    }

    /** Runs on the reload thread. */
    @Override
    public ReloadOutcome offer(Policy next, boolean sameBytes) {
        Policy applied;
        try {
            // The file passed its checks on its own; read again with the running restart-only values in place it
            // must pass them again (the running admin listener's address with the file's token, say).
            applied = PolicyReload.applied(current.policy(), next);
        } catch (PolicyException e) {
            log.warn("policy reload refused: with the running restart-only values it fails its checks:\n{}",
                    e.getMessage());
            return count(refused(e));
        }
        if (sameBytes && next.equals(current.policy())) {
            return count(new ReloadOutcome("unchanged", current.number(), List.of(), List.of()));
        }
        return count(apply(next, applied));
    }

    /** Swaps in the generation {@code applied} describes: {@code next} with the running restart-only values. */
    private ReloadOutcome apply(Policy next, Policy applied) {
        Generation old = current;
        List<String> restart = PolicyReload.restartRequired(old.policy(), next);
        Generation fresh = generations.build(applied, old);
        current = fresh;
        paths.swap(fresh.path());
        if (fresh.backends() != old.backends()) {
            old.health().close();
            old.backends().kv().close();
            fresh.health().start();
            fresh.backends().kv().start();
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

    private ReloadOutcome refused(PolicyException e) {
        return new ReloadOutcome("rejected", current.number(), List.of(e.getMessage().split("\n")), List.of());
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
        current.backends().kv().close();
        generations.quotas().close();
    }
}
