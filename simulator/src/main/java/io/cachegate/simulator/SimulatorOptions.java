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
 * @param prefixCacheBlocks capacity of the prefix cache in blocks (LRU); 0 turns it off
 * @param prefixBlockChars  prompt characters per prefix-cache block (about 4 characters a token)
 * @param answers           labelled texts answered with their label's canonical answer; {@link AnswerBook#NONE}
 *                          generates every answer
 * @param modelCards        the initial {@link ModelCard} of some served models (the others report root = id, no
 *                          revision); {@code POST /sim/models/{id}} changes them while running
 */
public record SimulatorOptions(String host, int port, long ttftMs, double prefillMsPerToken, double tpotMs,
                               int maxConcurrency, int maxQueue, double errorRate, double hangRate,
                               int defaultMaxTokens, List<String> models, long seed, double tokensPerSecond,
                               int prefixCacheBlocks, int prefixBlockChars, AnswerBook answers,
                               List<ModelCard> modelCards) {

    /** Block size when none is given: 256 characters, about 64 tokens. */
    public static final int DEFAULT_PREFIX_BLOCK_CHARS = 256;

    public SimulatorOptions {
        Objects.requireNonNull(host, "host");
        models = List.copyOf(Objects.requireNonNull(models, "models"));
        Objects.requireNonNull(answers, "answers");
        modelCards = List.copyOf(Objects.requireNonNull(modelCards, "modelCards"));
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
                List.of());
    }

    public SimulatorOptions withHost(String value) {
        return new SimulatorOptions(value, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withPort(int value) {
        return new SimulatorOptions(host, value, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withTtftMs(long value) {
        return new SimulatorOptions(host, port, value, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withPrefillMsPerToken(double value) {
        return new SimulatorOptions(host, port, ttftMs, value, tpotMs, maxConcurrency, maxQueue, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withTpotMs(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, value, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withMaxConcurrency(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, value, maxQueue, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withMaxQueue(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, value, errorRate,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withErrorRate(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue, value,
                hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withHangRate(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, value, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withDefaultMaxTokens(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, value, models, seed, tokensPerSecond, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withModels(List<String> value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, value, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withSeed(long value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, value, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, modelCards);
    }

    public SimulatorOptions withTokensPerSecond(double value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, value, prefixCacheBlocks, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withPrefixCacheBlocks(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, value, prefixBlockChars,
                answers, modelCards);
    }

    public SimulatorOptions withPrefixBlockChars(int value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks, value,
                answers, modelCards);
    }

    /** Requests whose last user text the book holds are answered with their label's canonical answer. */
    public SimulatorOptions withAnswers(AnswerBook value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, value, modelCards);
    }

    /** The initial cards of some served models (see {@link ModelCard}); the others report their default card. */
    public SimulatorOptions withModelCards(List<ModelCard> value) {
        return new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                prefixBlockChars, answers, value);
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
