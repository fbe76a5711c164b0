package io.cachegate.gateway;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.admin.BackendHealth;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.metrics.AdmissionMetrics;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.quota.Quotas;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.server.RequestPaths;
import io.cachegate.gateway.telemetry.Telemetry;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.micrometer.core.instrument.Gauge;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds the generation a policy describes, numbered from 1, out of what outlives generations (the caches, the
 * coalescer, the tenants' quotas, the upstream client, the model versions). The backends (replica sets with their
 * breakers and leases, admission queues) and their health probes carry over from the previous generation when the
 * backends, classes and admission sections are unchanged, so a reload of tenants, keys or routes leaves them exactly
 * as they were.
 */
final class GenerationBuilder {

    /** A recording a coalesced answer keeps for its followers is bounded by this. */
    private static final long MAX_SHARED_BYTES = 32L * 1024 * 1024;

    private final EventLoopGroup group;
    private final GatewayMetrics metrics;
    private final UpstreamClient upstream;
    private final Ticker ticker;
    private final ModelVersions versions;
    private final CacheStore store;
    private final SemanticCache semantic;
    private final Telemetry telemetry;
    private final Coalescer coalescer;
    private final Quotas quotas;
    private final AtomicLong number = new AtomicLong();

    /**
     * @param policy the first policy: whether quotas are shared follows its exact store, a restart-only setting
     * @param fleet the leases of coalescing across gateways, or null
     */
    GenerationBuilder(Policy policy, EventLoopGroup group, GatewayMetrics metrics, UpstreamClient upstream,
                      Ticker ticker, ModelVersions versions, CacheStore store, SemanticCache semantic,
                      Telemetry telemetry, FlightLeases fleet) {
        this.group = group;
        this.metrics = metrics;
        this.upstream = upstream;
        this.ticker = ticker;
        this.versions = versions;
        this.store = store;
        this.semantic = semantic;
        this.telemetry = telemetry;
        this.coalescer = new Coalescer(MAX_SHARED_BYTES, fleet, ticker, group);
        this.quotas = Quotas.forStore(policy.cache().exact(), metrics, ticker);
        Gauge.builder("cachegate.policy.generation", number, AtomicLong::get)
                .description("The policy generation serving new requests (1 at start, +1 per applied reload)")
                .register(metrics.registry());
    }

    /** The coalescer every generation shares. */
    Coalescer coalescer() {
        return coalescer;
    }

    /** The tenants' rate limits every generation shares, re-configured in place by each. */
    Quotas quotas() {
        return quotas;
    }

    /** The generation for {@code policy}; {@code previous} is the one it replaces, null for the first. */
    Generation build(Policy policy, Generation previous) {
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
        backends.tenantWeights(policy.tenants());
        long next = number.incrementAndGet();
        RequestPaths.Current path = new RequestPaths.Current(next, services,
                RequestPath.assemble(services, store, semantic, new CacheKeys(policy, versions), coalescer,
                        quotas, backends));
        return new Generation(next, policy, services, backends, health, path);
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
}
