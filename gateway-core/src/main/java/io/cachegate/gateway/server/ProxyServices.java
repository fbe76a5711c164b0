package io.cachegate.gateway.server;

import io.cachegate.config.Policy;
import io.cachegate.config.RouteTable;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.upstream.UpstreamClient;

/**
 * What the listeners and stages share, built once from a policy: routes, the parser, the upstream client, the
 * metrics and the clock. Immutable apart from the drain flag, so the hot path never reads mutable configuration.
 */
public final class ProxyServices {

    private final Policy policy;
    private final RouteTable routes;
    private final OpenAiRequestParser parser;
    private final UpstreamClient upstream;
    private final GatewayMetrics metrics;
    private final Ticker ticker;
    private volatile boolean draining;

    public ProxyServices(Policy policy, UpstreamClient upstream, GatewayMetrics metrics, Ticker ticker) {
        this.policy = policy;
        this.routes = RouteTable.of(policy);
        this.parser = new OpenAiRequestParser(policy.server().json());
        this.upstream = upstream;
        this.metrics = metrics;
        this.ticker = ticker;
    }

    public Policy policy() {
        return policy;
    }

    public RouteTable routes() {
        return routes;
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

    /** The one clock of the gateway. */
    public Ticker ticker() {
        return ticker;
    }

    public boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }
}
