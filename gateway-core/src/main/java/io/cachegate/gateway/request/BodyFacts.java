package io.cachegate.gateway.request;

import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.exchange.Exchange;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * What one request body means, worked out once and shared by every byte-identical repeat of it ({@link BodyMemo}):
 * the parsed request, and what later stages derive from the body alone for given inputs (the cache key for a
 * tenant, route and model version; the sensitive-data findings). A repeat reads these instead of parsing and
 * canonicalising the body again; its meaning is the same because its bytes are. The parsed tree is read-only.
 */
public final class BodyFacts {

    /** The facts of the exchange's body; absent for a pass-through request or a body too large to remember. */
    public static final Exchange.Key<BodyFacts> KEY = Exchange.Key.named("body.facts");

    /** Derived facts kept per body: a handful of tenants or routes sending the same bytes, not an open map. */
    static final int MAX_DERIVED = 8;

    private final OpenAiRequest parsed;
    private final ConcurrentMap<Object, Object> derived = new ConcurrentHashMap<>(4);

    BodyFacts(OpenAiRequest parsed) {
        this.parsed = parsed;
    }

    public OpenAiRequest parsed() {
        return parsed;
    }

    /**
     * The value {@code compute} gives for {@code inputs} (a record of everything besides the body it depends on:
     * tenant, route, model version...), computed once per body and inputs. Past {@link #MAX_DERIVED} inputs it is
     * computed each time and not kept. A computation that throws is not remembered.
     */
    public <T> T derive(Object inputs, Class<T> type, Supplier<T> compute) {
        Object known = derived.get(inputs);
        if (known != null) {
            return type.cast(known);
        }
        T value = compute.get();
        if (value != null && derived.size() < MAX_DERIVED) {
            derived.putIfAbsent(inputs, value);
        }
        return value;
    }
}
