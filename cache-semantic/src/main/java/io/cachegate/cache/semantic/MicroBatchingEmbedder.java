package io.cachegate.cache.semantic;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's {@link Embedder}: callers enqueue texts and get a future; {@code workers} threads each
 * gather up to {@code max_batch} queued texts, waiting at most {@code max_wait} after the first, and embed
 * them in one model call. The queue holds at most {@code queue_size} texts; beyond it a call fails at once.
 */
public final class MicroBatchingEmbedder implements Embedder {

    private static final Logger log = LoggerFactory.getLogger(MicroBatchingEmbedder.class);

    /** Sentences of typical prompt length; {@link #warmUpTexts} strings them into texts of growing length. */
    private static final List<String> WARM_UP_SENTENCES = List.of(
            "How do I reset my password?",
            "What are the opening hours of the support desk on public holidays?",
            "Summarise the following paragraph in two sentences for a customer newsletter.");
    /**
     * Texts of 1 to 12 sentences (about 8 to 150 tokens): inputs of the lengths requests have, not one length. (With
     * every worker warmed this way the first requests' embeds measured 7-14 ms against 8-12 ms before, within this
     * machine's noise; steady state ~5 ms. What the warm-up measurably fixes is the index: see SemanticCache.)
     */
    private static final List<String> WARM_UP_TEXTS = warmUpTexts(12);
    private static final int WARM_UP_ROUNDS = 2;
    /** Long enough for an in-flight model call to finish; after it the session is leaked rather than freed under it. */
    private static final long CLOSE_JOIN_MILLIS = 30_000;
    /**
     * Wakes a waiting worker to stop. Not an interrupt: that would also reach a worker inside the model
     * call, whose result is still owed to its callers.
     */
    private static final Item POISON = new Item("", null, -1);

    private final EmbedderModel model;
    private final int maxBatch;
    private final long maxWaitNanos;
    private final int queueSize;
    /** Unbounded as a structure; {@link #queued} is the bound, reserved before adding so a call is all or nothing. */
    private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final List<Thread> workers;
    private final MicroBatchStats stats;
    private final CompletableFuture<Void> warmedUp = new CompletableFuture<>();
    /** Workers still warming up: ready only when every one has (a cold worker would serve the first requests). */
    private final AtomicInteger warming;
    private final AtomicBoolean loggedFailureTrace = new AtomicBoolean();
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private volatile boolean closed;

    MicroBatchingEmbedder(EmbedderModel model, EmbedderSettings settings) {
        this.model = Objects.requireNonNull(model, "model");
        this.maxBatch = settings.maxBatch();
        this.maxWaitNanos = settings.maxWait().toNanos();
        this.queueSize = settings.queueSize();
        this.stats = new MicroBatchStats(maxBatch, queued::get);
        List<Thread> threads = new ArrayList<>(settings.workers());
        this.warming = new AtomicInteger(settings.workers());
        for (int i = 0; i < settings.workers(); i++) {
            // ONNX Runtime's native code needs more stack than a default Java thread has (see OnnxEmbedder).
            Thread worker = new Thread(null, this::work, "cachegate-embedder-" + i,
                    OnnxEmbedder.NATIVE_STACK_BYTES);
            worker.setDaemon(true);
            threads.add(worker);
        }
        this.workers = List.copyOf(threads);
        workers.forEach(Thread::start);
    }

    /**
     * Loads the configured model (blocking, a second or two) and starts the workers, which warm the model
     * up before serving; {@link #warmedUp()} completes when they have.
     */
    public static MicroBatchingEmbedder start(EmbedderSettings settings) {
        return new MicroBatchingEmbedder(OnnxEmbedder.open(settings), settings);
    }

    /** Starts the workers in front of a model already loaded (e.g. {@link OnnxEmbedder#openResource}), owning it. */
    public static MicroBatchingEmbedder start(OnnxEmbedder model, EmbedderSettings settings) {
        return new MicroBatchingEmbedder(model, settings);
    }

    @Override
    public CompletableFuture<float[][]> embed(List<String> texts) {
        texts.forEach(text -> Objects.requireNonNull(text, "texts must not contain null"));
        int n = texts.size();
        if (n == 0) {
            return CompletableFuture.completedFuture(new float[0][]);
        }
        if (closed) {
            stats.rejected(n);
            return CompletableFuture.failedFuture(closedException());
        }
        int before;
        do {
            before = queued.get();
            if (before + n > queueSize) {
                stats.rejected(n);
                return CompletableFuture.failedFuture(new EmbedderRejectedException(
                        EmbedderRejectedException.Reason.QUEUE_FULL, "embedder queue full: " + before
                        + " texts waiting, " + n + " more would exceed queue_size " + queueSize));
            }
        } while (!queued.compareAndSet(before, before + n));
        Request request = new Request(n);
        for (int i = 0; i < n; i++) {
            queue.add(new Item(texts.get(i), request, i));
        }
        if (closed) {
            // close() may have drained the queue between our check and our add.
            failPending();
        }
        return request.future;
    }

    @Override
    public int dimension() {
        return model.dimension();
    }

    @Override
    public String modelId() {
        return model.modelId();
    }

    /** Completes when the first worker has warmed the model up; exceptionally if warm-up failed. */
    public CompletableFuture<Void> warmedUp() {
        return warmedUp;
    }

    public MicroBatchStats stats() {
        return stats;
    }

    /**
     * Fails queued texts at once, lets a model call in flight finish, then frees the model. Blocks for at
     * most that one call.
     */
    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        failPending();
        workers.forEach(worker -> queue.add(POISON));
        boolean stopped = true;
        for (Thread worker : workers) {
            try {
                worker.join(CLOSE_JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopped &= !worker.isAlive();
        }
        failPending();
        if (stopped) {
            model.close();
        } else {
            log.warn("embedding model call still running after {}ms; leaving its session open", CLOSE_JOIN_MILLIS);
        }
    }

    private void work() {
        try {
            warmUp();
            List<Item> batch = new ArrayList<>(maxBatch);
            while (!closed) {
                Item first = queue.take();
                if (first == POISON) {
                    return;
                }
                batch.add(first);
                boolean poisoned = collect(batch);
                queued.addAndGet(-batch.size());
                if (closed) {
                    stats.rejected(batch.size());
                    fail(batch, closedException());
                    return;
                }
                run(batch);
                batch.clear();
                if (poisoned) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // Nothing of ours interrupts workers; whoever did wants the thread to end.
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("embedder worker {} died; the semantic cache is bypassed from now on",
                    Thread.currentThread().getName(), e);
            closed = true;
            failPending();
            if (e instanceof Error error) {
                throw error;
            }
        }
    }

    /**
     * Adds queued texts up to max_batch, waiting at most max_wait after the first for more to arrive.
     *
     * @return true when it met the close signal, which the caller honours after running the batch
     */
    private boolean collect(List<Item> batch) throws InterruptedException {
        long deadline = System.nanoTime() + maxWaitNanos;
        while (batch.size() < maxBatch) {
            Item next = queue.poll();
            if (next == null) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                next = queue.poll(remaining, TimeUnit.NANOSECONDS);
                if (next == null) {
                    return false;
                }
            }
            if (next == POISON) {
                return true;
            }
            batch.add(next);
        }
        return false;
    }

    private void run(List<Item> batch) {
        // A caller may have given up (cancelled after its own timeout): don't spend model time on it.
        batch.removeIf(item -> item.request.future.isDone());
        if (batch.isEmpty()) {
            return;
        }
        List<String> texts = new ArrayList<>(batch.size());
        for (Item item : batch) {
            texts.add(item.text);
        }
        stats.batch(batch.size());
        float[][] vectors;
        try {
            vectors = model.embed(texts);
        } catch (Exception e) {
            stats.failed(batch.size());
            if (loggedFailureTrace.compareAndSet(false, true)) {
                log.warn("embedding a batch of {} texts failed (later failures are logged without a trace)",
                        batch.size(), e);
            } else {
                log.warn("embedding a batch of {} texts failed: {}", batch.size(), e.toString());
            }
            fail(batch, e);
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Item item = batch.get(i);
            item.request.complete(item.index, vectors[i]);
        }
    }

    /**
     * Runs this worker's thread through the model: each warm-up length alone, then full batches, twice over.
     * Every worker warms up, so no request is the first model call of its worker's thread; {@link #warmedUp()}
     * completes with the last.
     */
    private void warmUp() {
        try {
            List<String> full = new ArrayList<>(maxBatch);
            for (int i = 0; i < maxBatch; i++) {
                full.add(WARM_UP_TEXTS.get(i % WARM_UP_TEXTS.size()));
            }
            for (int round = 0; round < WARM_UP_ROUNDS && !closed; round++) {
                for (String text : WARM_UP_TEXTS) {
                    model.embed(List.of(text));
                }
                model.embed(full);
            }
            if (warming.decrementAndGet() == 0) {
                warmedUp.complete(null);
            }
        } catch (Exception e) {
            log.warn("embedding model warm-up failed: {}", e.toString());
            warmedUp.completeExceptionally(e);
        }
    }

    /** Texts of 1 to {@code sentences} sentences, strung from {@link #WARM_UP_SENTENCES} in turn. */
    private static List<String> warmUpTexts(int sentences) {
        List<String> texts = new ArrayList<>(sentences);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < sentences; i++) {
            text.append(i == 0 ? "" : " ").append(WARM_UP_SENTENCES.get(i % WARM_UP_SENTENCES.size()));
            texts.add(text.toString());
        }
        return List.copyOf(texts);
    }

    private void failPending() {
        List<Item> drained = new ArrayList<>();
        queue.drainTo(drained);
        List<Item> pending = new ArrayList<>(drained.size());
        for (Item item : drained) {
            if (item == POISON) {
                queue.add(item);
            } else {
                pending.add(item);
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        queued.addAndGet(-pending.size());
        stats.rejected(pending.size());
        fail(pending, closedException());
    }

    private static void fail(List<Item> items, Throwable cause) {
        for (Item item : items) {
            item.request.future.completeExceptionally(cause);
        }
    }

    private static EmbedderRejectedException closedException() {
        return new EmbedderRejectedException(EmbedderRejectedException.Reason.CLOSED, "embedder is closed");
    }

    /** One caller's texts; its future completes when the last of them has a vector. */
    private static final class Request {

        final CompletableFuture<float[][]> future = new CompletableFuture<>();
        private final float[][] vectors;
        private final AtomicInteger remaining;

        Request(int size) {
            this.vectors = new float[size][];
            this.remaining = new AtomicInteger(size);
        }

        /** The counter's decrement publishes every worker's write of {@code vectors} to the completing one. */
        void complete(int index, float[] vector) {
            vectors[index] = vector;
            if (remaining.decrementAndGet() == 0) {
                future.complete(vectors);
            }
        }
    }

    private record Item(String text, Request request, int index) {
    }
}
