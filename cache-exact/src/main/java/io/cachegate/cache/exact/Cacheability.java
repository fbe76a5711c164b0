package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;

/**
 * Decides per request whether the exact cache is read and written. By default only deterministic
 * requests are cached (embeddings; chat, completions and responses at temperature 0 or with a seed,
 * and {@code n} = 1); a route with {@code nondeterministic: true} opts in to caching sampled answers
 * (and {@code n} above 1): every client then gets the first sample instead of a fresh one. A Responses
 * API request continuing state the backend holds is cached only on a route with {@code server_state: true}.
 */
public final class Cacheability {

    private Cacheability() {
    }

    /**
     * The decision for {@code body} on {@code route} under the client's {@code control}. The first
     * reason that applies is reported: route, then client header, then the request itself.
     */
    public static CacheDecision decide(Dialect dialect, ObjectNode body, RouteCachePolicy route, CacheControl control) {
        if (!route.exact()) {
            return CacheDecision.bypass(BypassReason.ROUTE_DISABLED);
        }
        if (control.noStore()) {
            return CacheDecision.bypass(BypassReason.NO_STORE);
        }
        BypassReason reason = dialect.bypass(body, route);
        if (reason != null) {
            return CacheDecision.bypass(reason);
        }
        return control.noCache() ? new CacheDecision(false, true, BypassReason.NO_CACHE) : CacheDecision.USE;
    }

    /**
     * Why a request of a sampling dialect (chat, completions, responses) is not cached on {@code route}: more than
     * one choice, or sampled without a seed; null when deterministic or the route opts in to sampled answers.
     */
    static BypassReason sampled(ObjectNode body, RouteCachePolicy route) {
        if (route.nondeterministic()) {
            return null;
        }
        if (!isOne(body.get("n"))) {
            return BypassReason.N_GREATER_THAN_ONE;
        }
        return deterministic(body) ? null : BypassReason.NONDETERMINISTIC;
    }

    /**
     * Temperature 0 is greedy decoding; a seed asks the backend to make sampling reproducible. An
     * omitted temperature is 1 (OpenAI's default), so it samples.
     */
    private static boolean deterministic(ObjectNode body) {
        JsonNode seed = body.get("seed");
        if (seed != null && !seed.isNull()) {
            return true;
        }
        JsonNode temperature = body.get("temperature");
        return temperature != null && temperature.isNumber() && isZero(temperature);
    }

    private static boolean isZero(JsonNode number) {
        return number.isFloatingPointNumber() && !number.isBigDecimal()
                ? number.doubleValue() == 0
                : number.decimalValue().signum() == 0;
    }

    /** Omitted or null {@code n} is 1; anything but the number 1 (2, 0, "1") is not. */
    private static boolean isOne(JsonNode n) {
        if (n == null || n.isNull()) {
            return true;
        }
        if (!n.isNumber()) {
            return false;
        }
        if (n.isFloatingPointNumber() && !n.isBigDecimal()) {
            return n.doubleValue() == 1;
        }
        return n.decimalValue().compareTo(BigDecimal.ONE) == 0;
    }
}
