package io.cachegate.gateway.proxy;

import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import io.cachegate.config.RouteTable;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.routing.BackendPool;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the request handlers share, built once from a policy: routes, backend pools and their
 * settings, the parser, the upstream client and the metrics. Immutable apart from the drain flag,
 * so the hot path never reads mutable configuration.
 */
public final class ProxyServices {

    private final Policy policy;
    private final RouteTable routes;
    private final Map<String, BackendPool> pools;
    private final Map<String, UpstreamSettings> settings;
    private final OpenAiRequestParser parser;
    private final UpstreamClient upstream;
    private final GatewayMetrics metrics;
    private volatile boolean draining;

    public ProxyServices(Policy policy, UpstreamClient upstream, GatewayMetrics metrics) {
        this.policy = policy;
        this.routes = RouteTable.of(policy);
        Map<String, BackendPool> p = new LinkedHashMap<>();
        Map<String, UpstreamSettings> s = new LinkedHashMap<>();
        for (Backend backend : policy.backends()) {
            p.put(backend.name(), new BackendPool(backend));
            s.put(backend.name(), UpstreamSettings.of(backend));
        }
        this.pools = Map.copyOf(p);
        this.settings = Map.copyOf(s);
        this.parser = new OpenAiRequestParser(policy.server().json());
        this.upstream = upstream;
        this.metrics = metrics;
    }

    public Policy policy() {
        return policy;
    }

    public RouteTable routes() {
        return routes;
    }

    public BackendPool pool(String backend) {
        return pools.get(backend);
    }

    /** The pools in policy order. */
    public Iterable<BackendPool> pools() {
        return policy.backends().stream().map(b -> pools.get(b.name())).toList();
    }

    public UpstreamSettings settings(String backend) {
        return settings.get(backend);
    }

    public OpenAiRequestParser parser() {
        return parser;
    }

    public UpstreamClient upstream() {
        return upstream;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    public boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }
}
