package io.cachegate.gateway.relay;

import io.cachegate.config.Policy;
import io.cachegate.gateway.dispatch.ServePlan;
import io.cachegate.gateway.dispatch.ServePlanner;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.upstream.UpstreamCaller;

/**
 * The last stage: relays the request to the replica the exchange holds and streams the answer back through the
 * exchange's taps (see {@link Relay}), with retries before the first byte and the context-length fallback.
 */
public final class RelayStage implements Stage {

    private final UpstreamCaller client;
    private final ServePlanner planner;
    private final GatewayMetrics metrics;
    /** When the client's key authenticated it to the gateway, it is not sent upstream. */
    private final boolean replaceAuthorization;

    public RelayStage(Policy policy, UpstreamCaller client, ServePlanner planner, GatewayMetrics metrics) {
        this.client = client;
        this.planner = planner;
        this.metrics = metrics;
        this.replaceAuthorization = policy.authRequired();
    }

    /** The call starts (a hit cancels it); what it says waits for the decision (see {@code SpeculativeHold}). */
    @Override
    public boolean tentative() {
        return true;
    }

    @Override
    public void handle(Exchange x, Next next) {
        new Relay(x, x.get(ServePlan.KEY), this).start();
    }

    UpstreamCaller client() {
        return client;
    }

    ServePlanner planner() {
        return planner;
    }

    GatewayMetrics metrics() {
        return metrics;
    }

    boolean replaceAuthorization() {
        return replaceAuthorization;
    }
}
