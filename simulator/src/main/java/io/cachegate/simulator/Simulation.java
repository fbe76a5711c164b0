package io.cachegate.simulator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.LongAdder;

/**
 * What all connections of one simulator (one replica) share: options, gate, faults, latency model,
 * prefix cache, model cards and counters.
 */
final class Simulation {

    final SimulatorOptions options;
    final ConcurrencyGate gate;
    final FaultInjector faults;
    final LatencyModel latency;
    final PrefixCache prefixCache;
    /** Trailing garbage after the JSON object is malformed JSON, as for vLLM. */
    final ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    final ModelCards cards;

    final LongAdder requests = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder hung = new LongAdder();
    final LongAdder embeddingInputs = new LongAdder();

    Simulation(SimulatorOptions options) {
        this.options = options;
        this.gate = new ConcurrencyGate(options.maxConcurrency(), options.maxQueue());
        this.faults = new FaultInjector(options.errorRate(), options.hangRate(), options.seed());
        this.latency = new LatencyModel(options.ttftMs(), options.prefillMsPerToken(), options.tpotMs(),
                options.tokensPerSecond());
        this.prefixCache = new PrefixCache(options.prefixCacheBlocks());
        this.cards = new ModelCards(options.models(), options.modelCards(), System.currentTimeMillis() / 1000);
    }

    /** Prompt characters per prefix-cache block, or 0 when the cache is off (prompts are then not cut). */
    int prefixBlockChars() {
        return options.prefixCacheEnabled() ? options.prefixBlockChars() : 0;
    }

    /**
     * Looks the prompt up in the prefix cache (counting the lookup) and returns the modelled time
     * from the start of generation to the first token: {@link LatencyModel} with the hit blocks'
     * share of the prompt taken as cached.
     */
    long firstTokenDelayNanos(CompletionRequest request) {
        PromptBlocks prefix = request.prefix();
        int hitBlocks = prefixCache.lookup(prefix.chain());
        int cachedTokens = LatencyModel.cachedTokens(request.promptTokens(), prefix.chars(),
                hitBlocks * options.prefixBlockChars());
        return latency.firstTokenDelayNanos(request.promptTokens(), cachedTokens);
    }

    /** The request's prefill is over: its blocks enter the prefix cache. */
    void prefilled(CompletionRequest request) {
        prefixCache.insert(request.prefix().chain());
    }

    SimulatorStats stats() {
        PrefixCache.Snapshot prefix = prefixCache.snapshot();
        return new SimulatorStats(requests.sum(), completed.sum(), cancelled.sum(), errors.sum(), hung.sum(),
                gate.active(), gate.queued(), prefix.blocksQueried(), prefix.blocksHit(), prefix.hitRequests(),
                prefix.blocksCached(), prefix.capacity(), embeddingInputs.sum());
    }
}
