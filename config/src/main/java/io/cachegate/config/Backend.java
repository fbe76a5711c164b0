package io.cachegate.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A pool of OpenAI-compatible model servers (replicas) serving the same models.
 *
 * @param urls base URLs with no path and no trailing slash, e.g. {@code http://10.0.0.5:8000}
 * @param models globs of the model names this pool serves ({@code *} and {@code ?})
 * @param modelVersion a pinned model version for cache keys; empty means read it from {@code /v1/models}
 * @param maxConcurrency requests in flight per replica; empty ({@code auto}) when the gateway finds it adaptively
 *     from each replica's measured time to first token
 * @param maxInflightTokens tokens (the requests' estimated costs) in flight per replica
 * @param metrics when true, each replica's vLLM {@code /metrics} is read as an extra load signal
 * @param prefixAffinity used when {@code balance} is {@link Balance#PREFIX_AFFINITY} (or {@link Balance#KV_AWARE}
 *     without events)
 * @param kvEvents the replicas' KV-cache events, for {@link Balance#KV_AWARE}
 */
public record Backend(String name, List<URI> urls, List<String> models, Optional<String> modelVersion,
                      OptionalInt maxConcurrency, int maxConnectionsPerUrl, Timeouts timeouts, Optional<String> apiKey,
                      Balance balance, long maxInflightTokens, HealthSettings health, boolean metrics,
                      PrefixAffinitySettings prefixAffinity, RetrySettings retries, KvEventsSettings kvEvents) {

    public static final long DEFAULT_MAX_INFLIGHT_TOKENS = BackendKeys.MAX_INFLIGHT_TOKENS.fallback();

    public Backend {
        Objects.requireNonNull(name, "name");
        urls = List.copyOf(urls);
        models = List.copyOf(models);
        Objects.requireNonNull(modelVersion, "modelVersion");
        Objects.requireNonNull(maxConcurrency, "maxConcurrency");
        Objects.requireNonNull(timeouts, "timeouts");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(balance, "balance");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(prefixAffinity, "prefixAffinity");
        Objects.requireNonNull(retries, "retries");
        Objects.requireNonNull(kvEvents, "kvEvents");
    }

    /** A backend with the default balance, token bound, health checks, metrics, affinity and retries. */
    public Backend(String name, List<URI> urls, List<String> models, Optional<String> modelVersion,
                   OptionalInt maxConcurrency, int maxConnectionsPerUrl, Timeouts timeouts, Optional<String> apiKey) {
        this(name, urls, models, modelVersion, maxConcurrency, maxConnectionsPerUrl, timeouts, apiKey,
                BackendKeys.BALANCE.fallback(), DEFAULT_MAX_INFLIGHT_TOKENS, HealthSettings.defaults(),
                BackendKeys.METRICS.fallback(), PrefixAffinitySettings.defaults(), RetrySettings.defaults(),
                KvEventsSettings.none());
    }

    /** True when one of the model globs matches this model name. */
    public boolean serves(String model) {
        for (String glob : models) {
            if (Globs.matches(glob, model)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        // The upstream API key must not end up in logs.
        return "Backend[name=" + name + ", urls=" + urls + ", models=" + models + ", modelVersion=" + modelVersion
                + ", maxConcurrency=" + (maxConcurrency.isPresent() ? maxConcurrency.getAsInt() : "auto") + ", maxConnectionsPerUrl=" + maxConnectionsPerUrl
                + ", timeouts=" + timeouts + ", apiKey=" + (apiKey.isPresent() ? "<redacted>" : "none")
                + ", balance=" + balance + ", maxInflightTokens=" + maxInflightTokens + ", health=" + health
                + ", metrics=" + metrics + ", prefixAffinity=" + prefixAffinity + ", retries=" + retries
                + ", kvEvents=" + kvEvents + "]";
    }
}
