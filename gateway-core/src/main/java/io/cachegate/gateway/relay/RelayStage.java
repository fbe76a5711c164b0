package io.cachegate.gateway.relay;

import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import io.cachegate.gateway.dispatch.ServePlan;
import io.cachegate.gateway.dispatch.ServePlanner;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.upstream.UpstreamCaller;
import io.cachegate.gateway.upstream.UpstreamSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last stage: relays the request to the replica the exchange holds and streams the answer back through the
 * exchange's taps (see {@link Relay}), with retries before the first byte and the context-length fallback.
 */
public final class RelayStage implements Stage {

    private final UpstreamCaller client;
    private final ServePlanner planner;
    private final GatewayMetrics metrics;
    private final Map<String, UpstreamSettings> settings;
    /** When the client's key authenticated it to the gateway, it is not sent upstream. */
    private final boolean replaceAuthorization;

    public RelayStage(Policy policy, UpstreamCaller client, ServePlanner planner, GatewayMetrics metrics) {
        this.client = client;
        this.planner = planner;
        this.metrics = metrics;
        Map<String, UpstreamSettings> s = new LinkedHashMap<>();
        for (Backend backend : policy.backends()) {
            s.put(backend.name(), UpstreamSettings.of(backend));
        }
        this.settings = Map.copyOf(s);
        this.replaceAuthorization = policy.authRequired();
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

    UpstreamSettings settings(String backend) {
        return settings.get(backend);
    }

    boolean replaceAuthorization() {
        return replaceAuthorization;
    }
}
