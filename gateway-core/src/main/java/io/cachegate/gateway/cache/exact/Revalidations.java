package io.cachegate.gateway.cache.exact;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.gateway.cache.AnswerScreen;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.exchange.StageChain;
import io.cachegate.gateway.metrics.GatewayMetrics;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refreshes exact entries served stale while they revalidate ({@code stale_while_revalidate}): one background request
 * per key at a time, taken through the miss path (fleet and in-process coalescing, admission, replica choice, the
 * relay, the capture that stores its answer) with no client attached. It runs on the event loop of the request that
 * found the entry stale, as a detached {@link Exchange} of its own: a copy of that request, its answer written
 * nowhere. A refresh that fails leaves the stale entry serving until its window ends.
 */
public final class Revalidations {

    /** Refreshes running at once at most: beyond it a stale answer is still served, and a later request refreshes. */
    static final int MAX_RUNNING = 1024;

    private final StageChain missPath;
    private final GatewayMetrics metrics;
    private final Set<CacheKey> running = ConcurrentHashMap.newKeySet();

    /** @param missPath the stages from coalescing to the relay, as the request path runs them for a miss */
    public Revalidations(StageChain missPath, GatewayMetrics metrics) {
        this.missPath = missPath;
        this.metrics = metrics;
    }

    /**
     * Starts the refresh of {@code stale}, the entry {@code client}'s request found past its TTL, unless one of its key
     * runs already. Called before the client is answered: the refresh copies its request.
     */
    public void refresh(Exchange client, CacheableRequest c, CacheEntry stale) {
        CacheKey key = c.key();
        if (running.size() >= MAX_RUNNING) {
            metrics.cacheRevalidated(client.routeLabel(), "dropped");
            return;
        }
        if (!running.add(key)) {
            return; // one refresh per key: this one's answer replaces the entry for every request
        }
        Exchange refresh = new Exchange(client.ctx(), client.request().copy(), RequestIds.forRequest(null).requestId(),
                true, client.ticker(), new Ended(key), () -> { });
        refresh.detach();
        refresh.endpoint(client.endpoint());
        refresh.tenant(client.tenant());
        refresh.keyLabels(client.keyLabels());
        refresh.parsed(client.parsed());
        refresh.route(client.route());
        refresh.set(EntryAccess.KEY, EntryAccess.of(client));
        AnswerScreen screen = client.get(AnswerScreen.KEY);
        if (screen != null) {
            refresh.set(AnswerScreen.KEY, screen); // the refreshed answer is screened as the first one was
        }
        refresh.set(CacheableRequest.KEY, c.forRefresh(stale));
        // After the client's answer: the refresh never delays it.
        client.ctx().executor().execute(() -> missPath.start(refresh));
    }

    /** Refreshes running now (for tests and stats). */
    public int running() {
        return running.size();
    }

    /** Ends a refresh: its key may be refreshed again, and its outcome is counted. */
    private final class Ended implements ExchangeObserver {

        private final CacheKey key;

        Ended(CacheKey key) {
            this.key = key;
        }

        @Override
        public void finished(Exchange x, int status, long nanos) {
            running.remove(key);
            String outcome = status >= 400 ? "failed"
                    : x.answer().source() == Answer.Source.BACKEND ? "refreshed" : "shared";
            metrics.cacheRevalidated(x.routeLabel(), outcome);
        }
    }
}
