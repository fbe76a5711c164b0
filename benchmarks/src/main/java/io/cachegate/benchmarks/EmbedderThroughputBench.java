package io.cachegate.benchmarks;

import io.cachegate.cache.semantic.MicroBatchStats;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.OnnxEmbedder;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 2 of {@code bench semantic}: texts per second through {@link MicroBatchingEmbedder} with concurrent
 * single-text callers, against the raw loop (one thread calling {@link OnnxEmbedder} directly), all in this
 * process with a bundled model. Each phase runs for a fixed time after a short unrecorded ramp.
 */
final class EmbedderThroughputBench {

    /** ONNX Runtime needs a deep native stack on the calling thread (see OnnxEmbedder.NATIVE_STACK_BYTES). */
    static final long NATIVE_STACK_BYTES = 32L << 20;
    private static final Pattern VARIANT = Pattern.compile("(\\d+)x(\\d+)(?:x(\\d+))?");
    private static final int TEXTS = 4096;
    private static final Duration RAMP = Duration.ofSeconds(1);
    static final Progress PROGRESS = new Progress("semantic embedder");

    /**
     * Embedder settings under test, written {@code BATCHxWORKERS[xINTRA]}: max_batch, workers and
     * intra_op_threads (0 = the default, half the cores).
     */
    record Variant(int maxBatch, int workers, int intraOpThreads) {

        Variant {
            if (maxBatch < 1 || workers < 1 || intraOpThreads < 0) {
                throw new IllegalArgumentException("max_batch and workers must be >= 1 and intra_op_threads >= 0");
            }
        }

        static Variant parse(String text) {
            Matcher m = VARIANT.matcher(text.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("--embedder-variants: \"" + text
                        + "\" is not BATCHxWORKERS[xINTRA], e.g. 1x2 or 32x1x1");
            }
            return new Variant(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
        }

        static Variant defaults() {
            return defaults(EmbedderSettings.BUNDLED);
        }

        /** The policy's defaults for a bundled model (bundled-fp32 batches by default, bundled does not). */
        static Variant defaults(String model) {
            EmbedderSettings d = EmbedderSettings.defaultsFor(model, Optional.empty());
            return new Variant(d.maxBatch(), d.workers(), d.intraOpThreads());
        }

        EmbedderSettings settings() {
            return settings(EmbedderSettings.BUNDLED);
        }

        /** This variant's settings with a bundled model. */
        EmbedderSettings settings(String model) {
            EmbedderSettings d = EmbedderSettings.defaultsFor(model, Optional.empty());
            return new EmbedderSettings(d.model(), d.tokenizer(), d.pooling(), d.normalize(), d.maxTokens(), maxBatch,
                    d.maxWait(), d.queueSize(), workers, intraOpThreads, d.interOpThreads());
        }

        String label() {
            return maxBatch + "x" + workers + "x" + settings().effectiveIntraOpThreads();
        }
    }

    private final List<String> texts;
    private final Duration duration;
    private final int callers;

    EmbedderThroughputBench(Duration duration, int callers) {
        this.duration = duration;
        this.callers = callers;
        List<String> t = new ArrayList<>(TEXTS);
        for (int i = 0; i < TEXTS; i++) {
            t.add(DistinctPrompts.prompt(i));
        }
        this.texts = List.copyOf(t);
    }

    /** One raw loop's figures: texts per second, and the median time of one model call. */
    record RawResult(double textsPerSecond, double p50CallMs) {
    }

    /** Texts/s and the median call time of one thread calling the model directly with batches of {@code batch}. */
    RawResult raw(OnnxEmbedder model, int batch) throws InterruptedException {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread loop = new Thread(null, () -> {
            try {
                long rampEnd = System.nanoTime() + RAMP.toNanos();
                int offset = 0;
                while (System.nanoTime() < rampEnd) {
                    model.embed(texts.subList(offset, offset + batch));
                    offset = (offset + batch) % (texts.size() - batch);
                }
                long done = 0;
                long start = System.nanoTime();
                long end = start + duration.toNanos();
                List<Long> callNanos = new ArrayList<>();
                while (System.nanoTime() < end) {
                    long callStart = System.nanoTime();
                    model.embed(texts.subList(offset, offset + batch));
                    callNanos.add(System.nanoTime() - callStart);
                    offset = (offset + batch) % (texts.size() - batch);
                    done += batch;
                }
                result.set(new RawResult(done / ((System.nanoTime() - start) / 1e9),
                        Medians.of(callNanos.stream().mapToDouble(n -> n / 1e6))));
            } catch (Exception | Error e) {
                result.set(e);
            }
        }, "bench-raw-onnx", NATIVE_STACK_BYTES);
        loop.start();
        loop.join();
        if (result.get() instanceof RawResult raw) {
            return raw;
        }
        throw new IllegalStateException("the raw ONNX loop failed: " + result.get(), (Throwable) result.get());
    }

    /** Texts/s through the embedder, {@link #callers} threads each keeping one single-text call in flight. */
    double batched(MicroBatchingEmbedder embedder, String label) throws InterruptedException {
        MicroBatchStats stats = embedder.stats();
        LongAdder done = new LongAdder();
        AtomicBoolean recording = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(callers);
        for (int c = 0; c < callers; c++) {
            int first = c;
            threads.add(new Thread(() -> {
                int i = first;
                try {
                    while (running.get()) {
                        embedder.embed(List.of(texts.get(i % texts.size()))).join();
                        if (recording.get()) {
                            done.increment();
                        }
                        i += callers;
                    }
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-embed-caller-" + c));
        }
        threads.forEach(Thread::start);
        Thread.sleep(RAMP.toMillis());
        long batchesBefore = stats.batches();
        long textsBefore = stats.texts();
        long start = System.nanoTime();
        recording.set(true);
        Thread.sleep(duration.toMillis());
        recording.set(false);
        double rate = done.sum() / ((System.nanoTime() - start) / 1e9);
        long batches = stats.batches() - batchesBefore;
        long batchedTexts = stats.texts() - textsBefore;
        running.set(false);
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an embedder call failed: " + failure.get(), failure.get());
        }
        PROGRESS.info("%s: %.1f texts/s, mean batch %.2f", label, rate,
                batches == 0 ? 0.0 : (double) batchedTexts / batches);
        return rate;
    }
}
