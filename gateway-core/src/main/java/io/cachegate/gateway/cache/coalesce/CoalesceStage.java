package io.cachegate.gateway.cache.coalesce;

import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.Stage;
import java.util.concurrent.TimeUnit;

/**
 * Coalescing: where a cacheable request that no cache answered becomes a miss. Identical misses in flight share
 * one upstream call: the first leads (its answer is recorded for the others as it is relayed) and goes on to the
 * backend; the rest follow the leader's answer from its start. A follower whose leader fails before its head, or
 * whose head is late, goes on to the backend itself. Requests whose store lookup failed coalesce too: the shield
 * does not depend on the store.
 */
public final class CoalesceStage implements Stage {

    /** The answer this request leads, which its followers read; the capture settles it once stored. */
    public static final Exchange.Key<SharedAnswer> LEADING = Exchange.Key.named("coalesce.leading");
    /** The answer in flight the exact-cache stage found instead of looking the key up: this request follows it. */
    public static final Exchange.Key<SharedAnswer> FOLLOW = Exchange.Key.named("coalesce.follow");

    private final Coalescer coalescer;

    public CoalesceStage(Coalescer coalescer) {
        this.coalescer = coalescer;
    }

    /** A follower's span: from joining an identical request's call to its answer (or to leading after all). */
    @Override
    public String spanName() {
        return "cache.coalesce.wait";
    }

    /** Leading is taken back by a hit (the flight is abandoned, as when a client leaves); following is parked. */
    @Override
    public boolean tentative() {
        return true;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null) {
            next.proceed(x); // BYPASS
            return;
        }
        x.record().missed(); // a speculative lookup that hits after all makes it a hit
        x.xCache(GatewayHeaders.MISS);
        if (!c.decision().write()) {
            next.proceed(x); // nothing will be stored, so nothing is shared either
            return;
        }
        SharedAnswer found = x.get(FOLLOW);
        if (found != null) {
            Speculation.afterDecision(x, () -> follow(x, c, found, next));
            return;
        }
        join(x, c, next);
    }

    private void join(Exchange x, CacheableRequest c, Next next) {
        Coalescer.Role role = coalescer.join(c.key(), x.parsed().stream(), x.parsed().includeUsage(),
                RequestIds.gatewayId(x), x.record().traceOrigin(), answer -> servable(x, c, answer));
        if (x.get(FleetCoalesceStage.CLAIMED) != null) {
            // This gateway holds the key's lease: the answer generated here ends it, whichever request leads it, once
            // its write has ended (the waiters elsewhere then read the entry) or it failed (one of them leads).
            role.answer().whenSettled(completed -> coalescer.fleet().release(c.key(), completed));
        }
        if (role.leader()) {
            role.answer().staleEntry(c.staleEntry()); // for followers that skip the lookup (stale_if_error)
            x.set(LEADING, role.answer());
            x.addTap(role.answer());
            next.proceed(x);
            return;
        }
        // Following is not taken back: a pending lookup decides first (a hit answers, and the follower never was).
        Speculation.afterDecision(x, () -> follow(x, c, role.answer(), next));
    }

    /** Whether the request {@code x} may be served {@code answer}: a completed one only as a cached answer would be. */
    public static boolean servable(Exchange x, CacheableRequest c, SharedAnswer answer) {
        return answer.servable(c.decision().read(), c.control()::accepts, x.startNanos());
    }

    private void follow(Exchange x, CacheableRequest c, SharedAnswer answer, Next next) {
        FollowerRelay follower = new FollowerRelay(x, answer, coalesceAgain -> {
            if (coalesceAgain) {
                join(x, c, next); // the leader failed: one of the waiting requests leads now
            } else {
                next.proceed(x); // an answer that cannot be shared: this request makes its own call
            }
        });
        follower.start(TimeUnit.NANOSECONDS.convert(x.route().backend().timeouts().firstByte()));
    }
}
