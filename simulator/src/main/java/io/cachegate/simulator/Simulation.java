package io.cachegate.simulator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What all connections of one simulator (one replica) share: options, gate, faults, latency model,
 * prefill engine, prefix cache, model cards and counters; with {@code --kv-events} also the tokenizer, the thread that
 * runs it and the {@link KvEventPublisher}.
 */
final class Simulation implements AutoCloseable {

    /** Prompts waiting to be tokenized; beyond it a request is answered 503, as when the queue is full. */
    static final int TOKENIZE_QUEUE = 1024;

    final SimulatorOptions options;
    final ConcurrencyGate gate;
    final FaultInjector faults;
    final LatencyModel latency;
    final PrefixCache prefixCache;
    private final PrefillEngine engine;
    /** Trailing garbage after the JSON object is malformed JSON, as for vLLM. */
    final ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    final ModelCards cards;

    final LongAdder requests = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder hung = new LongAdder();
    final LongAdder embeddingInputs = new LongAdder();

    /** With {@code --kv-events}: the publisher (null otherwise) and whether this simulation closes it. */
    private final KvEventPublisher events;
    private final boolean ownsEvents;
    private final PromptTokenizer tokenizer;
    private final ThreadPoolExecutor tokenizing;
    private final AtomicBoolean closed = new AtomicBoolean();

    Simulation(SimulatorOptions options) {
        this(options, null);
    }

    /**
     * A replica publishing its KV events to {@code sharedEvents}, which outlives it (a restarted replica keeps
     * its publisher, so subscribers stay connected); null: it opens its own when KV events are on.
     */
    Simulation(SimulatorOptions options, KvEventPublisher sharedEvents) {
        this.options = options;
        this.gate = new ConcurrencyGate(options.maxConcurrency(), options.maxQueue());
        this.faults = new FaultInjector(options.errorRate(), options.hangRate(), options.seed());
        this.latency = new LatencyModel(options.ttftMs(), options.prefillMsPerToken(), options.tpotMs(),
                options.tokensPerSecond());
        this.engine = new PrefillEngine(options.sharedPrefill());
        this.cards = new ModelCards(options.models(), options.modelCards(), System.currentTimeMillis() / 1000);
        SimulatorOptions.KvEvents kv = options.kvEvents();
        if (!kv.enabled()) {
            this.events = null;
            this.ownsEvents = false;
            this.tokenizer = null;
            this.tokenizing = null;
            this.prefixCache = new PrefixCache(options.prefixCacheBlocks());
            return;
        }
        this.tokenizer = PromptTokenizer.load(kv.tokenizer());
        try {
            this.ownsEvents = sharedEvents == null;
            this.events = ownsEvents ? KvEventPublisher.open(options.host(), kv.port(), kv.replayBuffer())
                    : sharedEvents;
        } catch (RuntimeException e) {
            tokenizer.close();
            throw e;
        }
        this.prefixCache = new PrefixCache(options.prefixCacheBlocks(), events);
        // Tokenizing a 2,000-token prompt took ~4.6 ms here (PromptTokenizerTest): too long for an event loop.
        this.tokenizing = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(TOKENIZE_QUEUE), r -> {
                    Thread t = new Thread(r, "sim-tokenizer");
                    t.setDaemon(true);
                    return t;
                });
    }

    /** Prompt characters per prefix-cache block, or 0 when the cache is off or counts tokens (prompts are then not cut here). */
    int prefixBlockChars() {
        return options.prefixCacheEnabled() && tokenizer == null ? options.prefixBlockChars() : 0;
    }

    /** Prompts are cut into token blocks ({@code --kv-events}): see {@link #tokenized}. */
    boolean tokenizes() {
        return tokenizer != null;
    }

    /**
     * The request with its prompt tokenized and cut into token blocks, computed on the tokenizer thread; fails
     * with {@link RejectedExecutionException} when {@value #TOKENIZE_QUEUE} prompts already wait.
     */
    CompletableFuture<CompletionRequest> tokenized(CompletionRequest request) {
        int blockSize = options.kvEvents().blockSize();
        try {
            return CompletableFuture.supplyAsync(() -> request.withPrefix(PromptBlocks.ofTokens(request.model(),
                    tokenizer.tokenize(request.promptText()), blockSize)), tokenizing);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A request starts running at {@code now}: looks its prompt up in the prefix cache (counting the lookup), holds
     * the blocks it found until {@link #ended} and works out when its first token is due (after the prefills
     * computing blocks it found, then its own of the rest); null without a prefix cache.
     */
    PrefixCache.Hold started(CompletionRequest request, long now) {
        if (!options.prefixCacheEnabled()) {
            return null;
        }
        return prefixCache.acquire(request.prefix(), now, (found, startAt) ->
                firstTokenAt(request, cachedTokens(request, found), startAt));
    }

    /**
     * When the first token of {@code request} is due if its prefill, of the prompt tokens not among
     * {@code cachedTokens}, may start at {@code startAt}: after the prefills before it when the engine is shared.
     */
    long firstTokenAt(CompletionRequest request, int cachedTokens, long startAt) {
        return engine.prefilledAt(startAt, latency.prefillNanos(request.promptTokens(), cachedTokens))
                + latency.ttftNanos();
    }

    /**
     * The prompt tokens {@code hold} found cached: hit blocks × block size with token blocks, the hit characters'
     * share of the prompt's tokens with character blocks, {@link AnswerFormat#NO_PREFIX_CACHE} without a cache.
     */
    int cachedTokens(CompletionRequest request, PrefixCache.Hold hold) {
        return hold == null ? AnswerFormat.NO_PREFIX_CACHE : cachedTokens(request, hold.hits());
    }

    private int cachedTokens(CompletionRequest request, int hitBlocks) {
        PromptBlocks prefix = request.prefix();
        if (prefix.tokenized()) {
            return hitBlocks * prefix.blockSize();
        }
        return LatencyModel.cachedTokens(request.promptTokens(), prefix.chars(),
                hitBlocks * options.prefixBlockChars());
    }

    /**
     * The request's prefill is over (its first token is due): its blocks enter the prefix cache and, with KV events,
     * are published — when vLLM publishes them, after the step that computed them — and stay held until it ends.
     */
    void prefilled(PrefixCache.Hold hold) {
        if (hold != null) {
            prefixCache.store(hold);
        }
    }

    /** The request ended, answered or cancelled: its blocks become evictable. */
    void ended(PrefixCache.Hold hold) {
        if (hold != null) {
            prefixCache.release(hold);
        }
    }

    SimulatorStats stats() {
        PrefixCache.Snapshot prefix = prefixCache.snapshot();
        SimulatorStats.KvEventStats kv = events == null ? null : new SimulatorStats.KvEventStats(
                prefix.blocksCached(), events.endpoint(), events.replayEndpoint(), events.published(), events.dropped());
        return new SimulatorStats(requests.sum(), completed.sum(), cancelled.sum(), errors.sum(), hung.sum(),
                gate.active(), gate.queued(), prefix.blocksQueried(), prefix.blocksHit(), prefix.hitRequests(),
                prefix.waitRequests(), prefix.blocksCached(), prefix.capacity(), embeddingInputs.sum(), kv);
    }

    /** The publisher, or null without KV events. */
    KvEventPublisher events() {
        return events;
    }

    /**
     * Stops the tokenizer thread and frees the tokenizer; closes the publisher if this simulation opened it.
     * Idempotent. Call after the server stopped: no request may need them any more.
     */
    @Override
    public void close() {
        if (tokenizer == null || !closed.compareAndSet(false, true)) {
            return;
        }
        tokenizing.shutdownNow();
        try {
            tokenizing.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tokenizer.close();
        if (ownsEvents) {
            events.close();
        }
    }
}
