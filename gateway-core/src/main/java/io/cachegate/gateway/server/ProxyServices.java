package io.cachegate.gateway.server;

import io.cachegate.config.Policy;
import io.cachegate.config.RouteTable;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.upstream.UpstreamClient;

/**
 * What the listeners and stages share, built from one policy: routes, the parser, the upstream client, the
 * metrics and the clock. Immutable, so the hot path never reads mutable configuration; a reload builds new ones.
 */
public final class ProxyServices {

    private final Policy policy;
    private final RouteTable routes;
    private final OpenAiRequestParser parser;
    private final UpstreamClient upstream;
    private final GatewayMetrics metrics;
    private final Ticker ticker;
    private final ExchangeObserver observer;

    public ProxyServices(Policy policy, UpstreamClient upstream, GatewayMetrics metrics, Ticker ticker,
                         ExchangeObserver observer) {
        this.policy = policy;
        this.routes = RouteTable.of(policy);
        this.parser = new OpenAiRequestParser(policy.server().json());
        this.upstream = upstream;
        this.metrics = metrics;
        this.ticker = ticker;
        this.observer = observer;
    }

    /** Sees each exchange of this generation start and finish (log, trace, savings). */
    public ExchangeObserver observer() {
        return observer;
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
}
