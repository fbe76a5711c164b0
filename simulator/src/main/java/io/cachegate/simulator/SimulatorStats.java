package io.cachegate.simulator;

/**
 * A snapshot of a simulator's counters. {@code requests} counts inference calls (chat,
 * completions, embeddings), not health, models or stats; {@code errors} counts the 5xx answers
 * (injected 500s and queue-overflow 503s); {@code cancelled} counts requests whose client went
 * away before the answer was complete; {@code active} and {@code queued} are gauges.
 *
 * <p>The prefix-cache fields count blocks: {@code prefixBlocksQueried} looked up,
 * {@code prefixBlocksHit} found, {@code prefixHitRequests} lookups with at least one block found,
 * {@code prefixWaitRequests} those that found blocks another request's prefill was computing (and waited for it);
 * {@code prefixBlocksCached} of {@code prefixCacheBlocks} (the capacity, 0 when the cache is off)
 * are in use. {@code embeddingInputs} counts the input items of embeddings calls (a batch of
 * five counts five), so a test can see how many items a caching proxy sent on.
 *
 * <p>{@code kvEvents} is null unless the simulator publishes KV-cache events ({@code --kv-events}).
 */
public record SimulatorStats(long requests, long completed, long cancelled, long errors, long hung,
                             int active, int queued, long prefixBlocksQueried, long prefixBlocksHit,
                             long prefixHitRequests, long prefixWaitRequests, int prefixBlocksCached,
                             int prefixCacheBlocks, long embeddingInputs, KvEventStats kvEvents) {

    /**
     * A replica's KV-event publisher: {@code blocks} the token blocks it holds now (what a subscriber replaying
     * every event holds too), where it publishes and answers replays ({@code tcp://host:port}), the batches sent
     * and the batches dropped because the publisher's queue was full.
     */
    public record KvEventStats(int blocks, String endpoint, String replayEndpoint, long published, long dropped) {
    }

    /** The counters of a simulator without KV-cache events. */
    public SimulatorStats(long requests, long completed, long cancelled, long errors, long hung,
                          int active, int queued, long prefixBlocksQueried, long prefixBlocksHit,
                          long prefixHitRequests, int prefixBlocksCached, int prefixCacheBlocks,
                          long embeddingInputs) {
        this(requests, completed, cancelled, errors, hung, active, queued, prefixBlocksQueried, prefixBlocksHit,
                prefixHitRequests, 0, prefixBlocksCached, prefixCacheBlocks, embeddingInputs, null);
    }

    /** The counters without embedding inputs counted. */
    public SimulatorStats(long requests, long completed, long cancelled, long errors, long hung,
                          int active, int queued, long prefixBlocksQueried, long prefixBlocksHit,
                          long prefixHitRequests, int prefixBlocksCached, int prefixCacheBlocks) {
        this(requests, completed, cancelled, errors, hung, active, queued, prefixBlocksQueried, prefixBlocksHit,
                prefixHitRequests, prefixBlocksCached, prefixCacheBlocks, 0);
    }

    /** The counters of a simulator without a prefix cache. */
    public SimulatorStats(long requests, long completed, long cancelled, long errors, long hung,
                          int active, int queued) {
        this(requests, completed, cancelled, errors, hung, active, queued, 0, 0, 0, 0, 0, 0);
    }

    /** Blocks found over blocks looked up, 0 before any lookup. */
    public double prefixHitRate() {
        return prefixBlocksQueried == 0 ? 0 : (double) prefixBlocksHit / prefixBlocksQueried;
    }

    /**
     * The JSON served at {@code GET /sim/stats}. The prefix-cache counters are present only when
     * the cache is on, {@code embedding_inputs} once an embedding was asked for, and the {@code kv_*} fields
     * with KV-cache events, so the answer of a simulator without them keeps its original shape.
     */
    public String toJson() {
        StringBuilder json = new StringBuilder(192)
                .append("{\"requests\":").append(requests)
                .append(",\"completed\":").append(completed)
                .append(",\"cancelled\":").append(cancelled)
                .append(",\"errors\":").append(errors)
                .append(",\"hung\":").append(hung)
                .append(",\"active\":").append(active)
                .append(",\"queued\":").append(queued);
        if (embeddingInputs > 0) {
            json.append(",\"embedding_inputs\":").append(embeddingInputs);
        }
        if (prefixCacheBlocks > 0) {
            json.append(",\"prefix_blocks_queried\":").append(prefixBlocksQueried)
                    .append(",\"prefix_blocks_hit\":").append(prefixBlocksHit)
                    .append(",\"prefix_hit_requests\":").append(prefixHitRequests)
                    .append(",\"prefix_wait_requests\":").append(prefixWaitRequests)
                    .append(",\"prefix_blocks_cached\":").append(prefixBlocksCached)
                    .append(",\"prefix_cache_blocks\":").append(prefixCacheBlocks);
        }
        if (kvEvents != null) {
            json.append(",\"kv_blocks\":").append(kvEvents.blocks())
                    .append(",\"kv_events_endpoint\":").append(Json.quote(kvEvents.endpoint()))
                    .append(",\"kv_replay_endpoint\":").append(Json.quote(kvEvents.replayEndpoint()))
                    .append(",\"kv_events_published\":").append(kvEvents.published())
                    .append(",\"kv_events_dropped\":").append(kvEvents.dropped());
        }
        return json.append('}').toString();
    }
}
