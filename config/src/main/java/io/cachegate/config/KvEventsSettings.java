package io.cachegate.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a backend's replicas publish vLLM KV-cache events and how the gateway matches prompts against them
 * ({@code backends[].kv_events}, {@code kv_replay}, {@code tokenizer}, {@code chat_template}, {@code kv_aware:}),
 * read by {@link Balance#KV_AWARE}.
 *
 * @param publish one ZeroMQ endpoint per replica URL, in order ({@code tcp://host:port}); empty when none
 * @param replay per replica, its replay (ROUTER) endpoint; empty for a replica without one
 * @param tokenizer {@code bundled} or a {@code tokenizer.json} file; without one, routing falls back to prefix
 *                  affinity (the gateway cannot name the engine's token blocks)
 * @param chatTemplate a Jinja chat template file; empty for the minimal template the simulator uses
 * @param cpuWeight what a block held only in CPU memory counts, against 1 for GPU memory
 * @param maxBlocksPerReplica the index's bound per replica (blocks in any medium)
 * @param siblings admin URLs of sibling gateways to take the index from when the replicas' replay no longer holds
 *                 what this one missed (it started late, or lost events beyond the replay buffer)
 */
public record KvEventsSettings(List<String> publish, List<Optional<String>> replay, Optional<String> tokenizer,
                               Optional<String> chatTemplate, double cpuWeight, int maxBlocksPerReplica,
                               List<URI> siblings) {

    public KvEventsSettings {
        publish = List.copyOf(publish);
        replay = List.copyOf(replay);
        siblings = List.copyOf(siblings);
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(chatTemplate, "chatTemplate");
        if (replay.size() != publish.size()) {
            throw new IllegalArgumentException("one replay entry per publish endpoint: " + replay.size() + " for "
                    + publish.size());
        }
        if (!(cpuWeight >= 0 && cpuWeight <= 1)) {
            throw new IllegalArgumentException("cpuWeight must be in [0, 1], was " + cpuWeight);
        }
        if (maxBlocksPerReplica < 1) {
            throw new IllegalArgumentException("maxBlocksPerReplica must be positive, was " + maxBlocksPerReplica);
        }
    }

    /** No events: what a backend without {@code kv_events} has. */
    public static KvEventsSettings none() {
        return new KvEventsSettings(List.of(), List.of(), Optional.empty(), Optional.empty(),
                BackendKeys.KV_CPU_WEIGHT.fallback(), BackendKeys.KV_MAX_BLOCKS_PER_REPLICA.fallback(), List.of());
    }

    /** Whether the replicas publish events the gateway follows. */
    public boolean enabled() {
        return !publish.isEmpty();
    }
}
