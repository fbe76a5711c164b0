package io.cachegate.simulator;

import io.netty.util.AsciiString;

/**
 * {@code GET /metrics}: the few vLLM metrics a load-aware router reads, in Prometheus text format
 * and under vLLM's names, so a router tested against the simulator reads a real vLLM unchanged.
 * As in vLLM the {@code model_name} label is the first served model name. The prefix-cache
 * counters count blocks (vLLM counts tokens; the hit ratio is what routers use).
 * {@code vllm:kv_cache_usage_perc} is the fraction of prefix-cache blocks in use, or, without a
 * prefix cache, of the sequence slots.
 */
final class VllmMetrics {

    static final AsciiString PROMETHEUS_TEXT = AsciiString.cached("text/plain; version=0.0.4; charset=utf-8");

    private VllmMetrics() {
    }

    static String render(String modelName, SimulatorStats stats, int maxConcurrency) {
        String label = "{model_name=\"" + escape(modelName) + "\"}";
        double usage = stats.prefixCacheBlocks() > 0
                ? (double) stats.prefixBlocksCached() / stats.prefixCacheBlocks()
                : (double) stats.active() / maxConcurrency;
        StringBuilder out = new StringBuilder(1024);
        gauge(out, "vllm:num_requests_running", "Number of requests in model execution batches.", label,
                stats.active());
        gauge(out, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", label,
                stats.queued());
        gauge(out, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", label,
                Math.min(1.0, usage));
        counter(out, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried blocks.",
                label, stats.prefixBlocksQueried());
        counter(out, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached blocks.",
                label, stats.prefixBlocksHit());
        return out.toString();
    }

    private static void gauge(StringBuilder out, String name, String help, String label, double value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(" gauge\n")
                .append(name).append(label).append(' ').append(value).append('\n');
    }

    /** A counter as vLLM's Python prometheus_client writes it in text format: {@code _total} everywhere. */
    private static void counter(StringBuilder out, String name, String help, String label, long value) {
        String total = name + "_total";
        out.append("# HELP ").append(total).append(' ').append(help).append('\n')
                .append("# TYPE ").append(total).append(" counter\n")
                .append(total).append(label).append(' ').append((double) value).append('\n');
    }

    /** Label values escape backslash, double quote and newline. */
    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
