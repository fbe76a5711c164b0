package io.cachegate.routing;

/**
 * A vLLM replica's own load, from its {@code /metrics}.
 *
 * @param waiting requests queued, summed over engines and models
 * @param running requests running, summed over engines and models
 * @param kvCacheUsage KV cache use as a fraction in [0, 1], the highest over engines
 */
public record VllmLoad(double waiting, double running, double kvCacheUsage) {
}
