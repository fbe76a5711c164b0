package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.config.FleetSettings;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import java.time.Duration;

/**
 * Coalescing across gateways, just before coalescing in this process: a cacheable miss claims its key's lease in
 * Redis. The gateway that gets it (or already holds it) goes on to lead or follow here as usual; a request at any
 * other gateway waits, within a bound, for that gateway's answer to be stored and is answered from it as a hit
 * ({@code X-Cache: HIT}, {@code X-Cache-Coalesced: fleet}); when that gateway dies, its lease lapses and one waiter
 * takes over. Requests that follow an answer in flight here, or may not read or write the cache, do not claim.
 */
public final class FleetCoalesceStage implements Stage {

    /** Set on a request whose gateway holds its key's lease: the answer it leads or follows here releases it. */
    static final Exchange.Key<Boolean> CLAIMED = Exchange.Key.named("coalesce.fleet.claimed");

    private final FlightLeases leases;
    private final CacheStore store;
    private final FleetSettings settings;

    public FleetCoalesceStage(FlightLeases leases, CacheStore store, FleetSettings settings) {
        this.leases = leases;
        this.store = store;
        this.settings = settings;
    }

    @Override
    public String spanName() {
        return "cache.coalesce.fleet.wait";
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null || !c.decision().write() || !c.decision().read() || x.get(CoalesceStage.FOLLOW) != null) {
            next.proceed(x);
            return;
        }
        new FleetWait(x, c, leases, store, next, settings.leaseTtl()).start(waitBound(x));
    }

    /**
     * How long a request waits for another gateway's answer, which is also the longest its own lease is renewed: the
     * policy's bound, and never longer than the backend's total timeout (an answer cannot take longer than that, and the
     * waiter's own call would take as long as the one it waits for).
     */
    private Duration waitBound(Exchange x) {
        Duration total = x.route().backend().timeouts().total();
        return total.compareTo(settings.maxWait()) < 0 ? total : settings.maxWait();
    }
}
