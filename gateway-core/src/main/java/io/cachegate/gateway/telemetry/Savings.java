package io.cachegate.gateway.telemetry;

import io.cachegate.config.Globs;
import io.cachegate.config.ModelPrice;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.ExchangeRecord;
import java.util.List;
import java.util.function.Predicate;

/**
 * What each hit saved: its tokens (counted where the hit is written), what they would have cost at the policy's
 * price for the request's model, and the upstream time it avoided (the route's recent median). Successful upstream
 * answers teach the latency estimate. Runs first among the observers, so the log line and the span carry the
 * figures it puts in the {@link ExchangeRecord}.
 */
final class Savings implements ExchangeObserver {

    private final List<Price> prices;
    private final UpstreamLatency latency;

    Savings(List<ModelPrice> prices, UpstreamLatency latency) {
        this.prices = prices.stream().map(p -> new Price(Globs.compile(p.model()), p)).toList();
        this.latency = latency;
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        ExchangeRecord r = x.record();
        if (status >= 400) {
            return;
        }
        if (r.layer() == null) {
            if (r.upstreamNanos() >= 0) {
                latency.answered(x.routeLabel(), r.upstreamNanos());
            }
            return;
        }
        long prompt = Math.max(0, r.promptTokens());
        long completion = Math.max(0, r.completionTokens());
        ModelPrice price = price(x.model());
        double cost = price == null ? 0 : price.cost(prompt, completion);
        long avoided = latency.estimateNanos(x.routeLabel());
        r.saved(prompt + completion, cost, avoided);
    }

    /** The first price whose model glob matches, in file order; null when none does. */
    ModelPrice price(String model) {
        for (Price p : prices) {
            if (p.matches().test(model)) {
                return p.price();
            }
        }
        return null;
    }

    private record Price(Predicate<String> matches, ModelPrice price) {
    }
}
