package io.cachegate.simulator;

import java.util.List;
import java.util.Objects;

/**
 * Settings of a {@link BackendSimulator}: where it listens, its latency model, its concurrency
 * limits and decode throughput, its prefix cache, the faults it injects and the models it serves.
 * Immutable; validated on construction.
 *
 * @param host              address to bind
 * @param port              port to bind, 0 for an ephemeral port
 * @param ttftMs            fixed part of the time to first token
 * @param prefillMsPerToken added to the time to first token per prompt token
 * @param tpotMs            time per output token after the first
 * @param maxConcurrency    requests generating at once; the rest wait in a FIFO queue
 * @param maxQueue          bound of that queue; beyond it requests get 503
 * @param errorRate         fraction of inference requests answered with 500
 * @param hangRate          fraction of inference requests never answered
 * @param defaultMaxTokens  output length when the request gives no {@code max_tokens}
 * @param models            served model ids; the first is the default when a request names none
 * @param seed              seed of the fault injection, so runs repeat
 * @param tokensPerSecond   decode throughput of the replica shared by its running sequences: each
 *                          sequence's time per output token is {@code max(tpot, running / tokensPerSecond)};
 *                          0 means unlimited, so every sequence decodes at {@code tpot}
 * @param prefixCacheBlocks capacity of the prefix cache in blocks (least recently released evicted first); 0 turns it off
 * @param prefixBlockChars  prompt characters per prefix-cache block (about 4 characters a token)
 * @param answers           labelled texts answered with their label's canonical answer; {@link AnswerBook#NONE}
 *                          generates every answer
 * @param modelCards        the initial {@link ModelCard} of some served models (the others report root = id, no
 *                          revision); {@code POST /sim/models/{id}} changes them while running
 * @param kvEvents          token-based prefix cache publishing vLLM's KV-cache events, or {@link KvEvents#OFF};
 *                          when on, a {@code prefixCacheBlocks} of 0 becomes {@link #DEFAULT_KV_CACHE_BLOCKS}
 * @param sharedPrefill     the replica computes one prefill at a time, first come first served ({@link PrefillEngine}),
 *                          as an engine's steps share one accelerator; off, every running request prefills at its own
 *                          pace, however many run
 */
public record SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                               int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                               int defaultMaxTokens, List<String> models, long seed, double tokensPerSecond,
                               int prefixCacheBlocks, int prefixBlockChars, AnswerBook answers,
                               List<ModelCard> modelCards, KvEvents kvEvents, boolean sharedPrefill) {

    /** Block size when none is given: 256 characters, about 64 tokens. */
    public static final int DEFAULT_PREFIX_BLOCK_CHARS = 256;

    /** Prefix-cache capacity in token blocks when {@code --kv-events} is on and none is given. */
    public static final int DEFAULT_KV_CACHE_BLOCKS = 4096;

    /**
     * The {@code --kv-events} settings: each replica's prefix cache counts token blocks and publishes vLLM's
     * KV-cache events on ZeroMQ (docs/simulator.md).
     *
     * @param enabled      on; everything else is ignored when off
     * @param blockSize    tokens per block (vLLM's {@code block_size})
     * @param tokenizer    {@code bundled} (bge-small-en-v1.5's) or the path of a {@code tokenizer.json}
     * @param port         PUB port of replica 0 (replica i: port + 2i, its replay socket port + 2i + 1); 0 = free ports
     * @param replayBuffer batches each replica keeps for replay
     */
    public record KvEvents(boolean enabled, int blockSize, String tokenizer, int port, int replayBuffer) {

        public static final int DEFAULT_BLOCK_SIZE = 16;
        public static final int DEFAULT_REPLAY_BUFFER = 10_000;
        /** Off: the character-block prefix cache, no events. */
        public static final KvEvents OFF = new KvEvents(false, DEFAULT_BLOCK_SIZE, "bundled", 0, DEFAULT_REPLAY_BUFFER);

        public KvEvents {
            Objects.requireNonNull(tokenizer, "tokenizer");
            requireThat(blockSize >= 1 && blockSize <= 4096,
                    "kv block size (--kv-block-size) must be in [1, 4096], was " + blockSize);
            requireThat(!tokenizer.isBlank(), "kv tokenizer (--kv-tokenizer) must be bundled or a tokenizer.json path");
            requireThat(port >= 0 && port <= 65534, "kv events port (--kv-events-port) must be in [0, 65534], was "
                    + port);
            requireThat(replayBuffer >= 0 && replayBuffer <= 1_000_000,
                    "kv replay buffer (--kv-replay-buffer) must be in [0, 1000000], was " + replayBuffer);
        }

        /** On with the defaults: 16-token blocks, the bundled tokenizer, free ports, 10,000 batches kept. */
        public static KvEvents on() {
            return new KvEvents(true, DEFAULT_BLOCK_SIZE, "bundled", 0, DEFAULT_REPLAY_BUFFER);
        }

        public KvEvents withBlockSize(int value) {
            return new KvEvents(enabled, value, tokenizer, port, replayBuffer);
        }

        public KvEvents withPort(int value) {
            return new KvEvents(enabled, blockSize, tokenizer, value, replayBuffer);
        }

        public KvEvents withReplayBuffer(int value) {
            return new KvEvents(enabled, blockSize, tokenizer, port, value);
        }
    }

    public SimulatorOptions {
        Objects.requireNonNull(host, "host");
        models = List.copyOf(Objects.requireNonNull(models, "models"));
        Objects.requireNonNull(answers, "answers");
        modelCards = List.copyOf(Objects.requireNonNull(modelCards, "modelCards"));
        Objects.requireNonNull(kvEvents, "kvEvents");
        if (kvEvents.enabled() && prefixCacheBlocks == 0) {
            prefixCacheBlocks = DEFAULT_KV_CACHE_BLOCKS; // events describe a cache: one must exist
        }
        requireThat(port >= 0 && port <= 65535, "port must be in [0, 65535], was " + port);
        requireThat(ttftMs >= 0, "ttftMs must be >= 0, was " + ttftMs);
        requireThat(prefillMsPerToken >= 0, "prefillMsPerToken must be >= 0, was " + prefillMsPerToken);
        requireThat(tpotMs >= 0, "tpotMs must be >= 0, was " + tpotMs);
        requireThat(maxConcurrency >= 1, "maxConcurrency must be >= 1, was " + maxConcurrency);
        requireThat(maxQueue >= 0, "maxQueue must be >= 0, was " + maxQueue);
        requireThat(errorRate >= 0 && errorRate <= 1, "errorRate must be in [0, 1], was " + errorRate);
        requireThat(hangRate >= 0 && hangRate <= 1, "hangRate must be in [0, 1], was " + hangRate);
        requireThat(errorRate + hangRate <= 1, "errorRate + hangRate must be <= 1, was " + (errorRate + hangRate));
        requireThat(defaultMaxTokens >= 1, "defaultMaxTokens must be >= 1, was " + defaultMaxTokens);
        requireThat(!models.isEmpty(), "models must not be empty");
        requireThat(tokensPerSecond >= 0 && Double.isFinite(tokensPerSecond),
                "tokensPerSecond must be >= 0 and finite (0 = unlimited), was " + tokensPerSecond);
        requireThat(prefixCacheBlocks >= 0, "prefixCacheBlocks must be >= 0 (0 = off), was " + prefixCacheBlocks);
        requireThat(prefixBlockChars >= 1, "prefixBlockChars must be >= 1, was " + prefixBlockChars);
        for (ModelCard card : modelCards) {
            requireThat(models.contains(card.id()), "model card " + card.id() + " is not a served model " + models);
            requireThat(modelCards.stream().filter(c -> c.id().equals(card.id())).count() == 1,
                    "model card " + card.id() + " is given twice");
        }
    }

    /** The settings without KV-cache events. */
    public SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                            int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                            int defaultMaxTokens, List<String> models, long seed, double tokensPerSecond,
                            int prefixCacheBlocks, int prefixBlockChars, AnswerBook answers,
                            List<ModelCard> modelCards) {
        this(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, errorRate, hangRate,
                defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars, answers,
                modelCards, KvEvents.OFF, false);
    }

    /** The settings with every model reporting its default card (root = id, no revision). */
    public SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                            int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                            int defaultMaxTokens, List<String> models, long seed, double tokensPerSecond,
                            int prefixCacheBlocks, int prefixBlockChars, AnswerBook answers) {
        this(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, errorRate, hangRate,
                defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars, answers,
                List.of());
    }

    /** The settings without an answer book: every answer generated. */
    public SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                            int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                            int defaultMaxTokens, List<String> models, long seed, double tokensPerSecond,
                            int prefixCacheBlocks, int prefixBlockChars) {
        this(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, errorRate, hangRate,
                defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars, AnswerBook.NONE);
    }

    /** The settings before throughput sharing and the prefix cache existed: both off. */
    public SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                            int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                            int defaultMaxTokens, List<String> models, long seed) {
        this(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, errorRate, hangRate,
                defaultMaxTokens, models, seed, 0, 0, DEFAULT_PREFIX_BLOCK_CHARS);
    }

    /**
     * 127.0.0.1 on an ephemeral port, no latency, no faults, unlimited throughput, no prefix cache,
     * two models: the benchmark's fast path.
     */
    public static SimulatorOptions defaults() {
        return new SimulatorOptions("127.0.0.1", 0, 0, 0, 0, 256, 10_000, 0, 0, 64,
                List.of("llama-3.1-8b", "qwen2.5-0.5b"), 42, 0, 0, DEFAULT_PREFIX_BLOCK_CHARS, AnswerBook.NONE,
                List.of(), KvEvents.OFF, false);
    }

    public SimulatorOptions withHost(String value) {
        return new SimulatorOptions(value, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withPort(int value) {
        return new SimulatorOptions(host, value, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withTtftMs(long value) {
        return new SimulatorOptions(host, port, value, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withPrefillMsPerToken(double value) {
        return new SimulatorOptions(host, port, ttftMs, value, tpotMs, maxConcurrency, maxQueue, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withTpotMs(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, value, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withMaxConcurrency(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, value, maxQueue, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withMaxQueue(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, value, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withErrorRate(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, value,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withHangRate(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, value, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withDefaultMaxTokens(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, value, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withModels(List<String> value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, value, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withSeed(long value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, value, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withTokensPerSecond(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, value, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withPrefixCacheBlocks(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, value, prefixBlockChars,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    public SimulatorOptions withPrefixBlockChars(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, value,
                answers, modelCards, kvEvents, sharedPrefill);
    }

    /** Requests whose last user text the book holds are answered with their label's canonical answer. */
    public SimulatorOptions withAnswers(AnswerBook value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, value, modelCards, kvEvents, sharedPrefill);
    }

    /** The initial cards of some served models (see {@link ModelCard}); the others report their default card. */
    public SimulatorOptions withModelCards(List<ModelCard> value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, value, kvEvents, sharedPrefill);
    }

    /**
     * With KV-cache events (see {@link KvEvents}); turning them on with no prefix cache gives it
     * {@link #DEFAULT_KV_CACHE_BLOCKS} token blocks.
     */
    public SimulatorOptions withKvEvents(KvEvents value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, value, sharedPrefill);
    }

    /** Prefills one at a time, first come first served ({@link PrefillEngine}), or each at its own pace. */
    public SimulatorOptions withSharedPrefill(boolean value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards, kvEvents, value);
    }

    /** The prefix cache is on. */
    public boolean prefixCacheEnabled() {
        return prefixCacheBlocks > 0;
    }

    private static void requireThat(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
