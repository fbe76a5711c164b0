package io.cachegate.cache.semantic;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Texts per second of the raw ONNX loop (one thread, batches of 32) against {@link MicroBatchingEmbedder}
 * with 16 concurrent single-text callers. Run by hand (surefire runs only {@code *Test}):
 * {@code java -cp <test class path> io.cachegate.cache.semantic.EmbedderThroughputProbe [intra] [inter] [workers] [seconds]}.
 */
public final class EmbedderThroughputProbe {

    private static final String[] SUBJECTS = {"my password", "the invoice", "a refund", "the annual plan",
        "my account", "the delivery", "two-factor login", "the API key", "my subscription", "the report"};
    private static final String[] ASKS = {"How do I change", "Why can't I find", "Can you explain", "Where is",
        "What happens to", "Who can update", "When will I get", "Is there a limit on"};

    private EmbedderThroughputProbe() {
    }

    public static void main(String[] args) throws Exception {
        int intra = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        int inter = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        int maxBatch = args.length > 4 ? Integer.parseInt(args[4]) : 32;
        EmbedderSettings settings = new EmbedderSettings(EmbedderSettings.BUNDLED, Optional.empty(),
                EmbedderSettings.defaults().pooling(), true, 512, maxBatch, Duration.ofMillis(2), 1024, workers, intra,
                inter);
        List<String> texts = texts(4096);
        System.out.printf("cores=%d intra=%d inter=%d workers=%d max_batch=%d seconds=%d%n",
                Runtime.getRuntime().availableProcessors(), settings.effectiveIntraOpThreads(), inter, workers,
                maxBatch, seconds);
        System.out.printf("raw ONNX loop, batch 32, 1 thread: %.0f texts/s%n", raw(settings, texts, seconds, 32));
        System.out.printf("raw ONNX loop, batch 1, 1 thread:  %.0f texts/s%n", raw(settings, texts, seconds, 1));
        System.out.printf("micro-batched, 16 callers:         %.0f texts/s%n", batched(settings, texts, seconds));
    }

    private static double raw(EmbedderSettings settings, List<String> texts, int seconds, int batch)
            throws Exception {
        try (OnnxEmbedder model = OnnxEmbedder.open(settings)) {
            double[] rate = new double[1];
            Exception[] failure = new Exception[1];
            // The ONNX call needs the larger stack of OnnxEmbedder's threads, which the main thread lacks.
            Thread loop = new Thread(null, () -> {
                try {
                    for (int i = 0; i < 20; i++) {
                        model.embed(texts.subList(0, batch));
                    }
                    long done = 0;
                    long start = System.nanoTime();
                    long end = start + Duration.ofSeconds(seconds).toNanos();
                    int offset = 0;
                    while (System.nanoTime() < end) {
                        model.embed(texts.subList(offset, offset + batch));
                        offset = (offset + batch) % (texts.size() - batch);
                        done += batch;
                    }
                    rate[0] = done / ((System.nanoTime() - start) / 1e9);
                } catch (Exception e) {
                    failure[0] = e;
                }
            }, "raw-loop", OnnxEmbedder.NATIVE_STACK_BYTES);
            loop.start();
            loop.join();
            if (failure[0] != null) {
                throw failure[0];
            }
            return rate[0];
        }
    }

    private static double batched(EmbedderSettings settings, List<String> texts, int seconds) throws Exception {
        try (MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings)) {
            embedder.warmedUp().join();
            LongAdder done = new LongAdder();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> callers = new ArrayList<>();
            for (int c = 0; c < 16; c++) {
                int first = c;
                Thread caller = new Thread(() -> {
                    int i = first;
                    while (running.get()) {
                        embedder.embed(List.of(texts.get(i % texts.size()))).join();
                        done.increment();
                        i += 16;
                    }
                }, "caller-" + c);
                callers.add(caller);
            }
            long start = System.nanoTime();
            callers.forEach(Thread::start);
            Thread.sleep(Duration.ofSeconds(seconds).toMillis());
            running.set(false);
            for (Thread caller : callers) {
                caller.join();
            }
            double rate = done.sum() / ((System.nanoTime() - start) / 1e9);
            MicroBatchStats stats = embedder.stats();
            System.out.printf("  (%s, mean batch %.1f)%n", stats, (double) stats.texts() / stats.batches());
            return rate;
        }
    }

    /** Distinct questions of 6 to 14 words, so the tokenizer and the padding see realistic variety. */
    static List<String> texts(int count) {
        List<String> texts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String ask = ASKS[i % ASKS.length];
            String subject = SUBJECTS[(i / ASKS.length) % SUBJECTS.length];
            String tail = i % 3 == 0 ? " after I moved to another country last month" : i % 3 == 1 ? " today" : "";
            texts.add(ask + " " + subject + tail + " (case " + i + ")?");
        }
        return texts;
    }
}
