package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue in front of the model: the real model for vector equality under concurrency, a gated fake
 * model for overflow, batching and close, where the test must decide when the model call returns.
 */
class MicroBatchingEmbedderTest {

    /** Guards against a hang only; nothing here is timed. */
    private static final Duration HANG_GUARD = Duration.ofMinutes(1);

    private static MicroBatchingEmbedder real;

    @BeforeAll
    static void start() {
        real = MicroBatchingEmbedder.start(EmbedderSettings.defaults());
        real.warmedUp().join();
    }

    @AfterAll
    static void stop() {
        real.close();
    }

    @Test
    void embed_defaults_dimension384AndBundledModelId() {
        assertThat(real.dimension()).isEqualTo(384);
        assertThat(real.modelId()).startsWith("bge-small-en-v1.5-q@");
    }

    @Test
    void embed_batch_equalsSinglesWithin1e5() {
        List<String> texts = List.of("Cancel my order", "How long does a bank transfer take to arrive?", "",
                "Is the museum open on Mondays during the summer holidays, and do children pay?");

        float[][] batch = real.embed(texts).join();

        for (int i = 0; i < texts.size(); i++) {
            float[] single = real.embed(List.of(texts.get(i))).join()[0];
            for (int d = 0; d < single.length; d++) {
                assertThat(batch[i][d]).as("text %d, component %d", i, d).isCloseTo(single[d], within(1e-5f));
            }
        }
    }

    @Test
    void embed_eightConcurrentCallers_sameVectorsAsSequential() throws Exception {
        List<String> texts = distinctQuestions(64);
        List<float[]> sequential = new ArrayList<>();
        for (String text : texts) {
            sequential.add(real.embed(List.of(text)).join()[0]);
        }

        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<float[][]>> results = new ArrayList<>();
            for (int i = 0; i < texts.size(); i += 2) {
                List<String> pair = texts.subList(i, i + 2);
                results.add(callers.submit(() -> real.embed(pair).join()));
            }
            for (int r = 0; r < results.size(); r++) {
                float[][] vectors = results.get(r).get();
                assertThat(vectors[0]).containsExactly(sequential.get(2 * r));
                assertThat(vectors[1]).containsExactly(sequential.get(2 * r + 1));
            }
        } finally {
            callers.shutdown();
        }
    }

    @Test
    void embed_emptyList_completesEmpty() {
        assertThat(real.embed(List.of()).join()).isEmpty();
    }

    @Test
    void embed_queueFull_failsAtOnceWithQueueFull() throws Exception {
        GatedModel model = new GatedModel();
        try (MicroBatchingEmbedder embedder = gated(model, 1, 4)) {
            CompletableFuture<float[][]> inFlight = embedder.embed(List.of("in flight"));
            model.entered.await();
            List<CompletableFuture<float[][]>> queued = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                queued.add(embedder.embed(List.of("queued " + i)));
            }

            CompletableFuture<float[][]> overflow = embedder.embed(List.of("one too many"));

            assertThat(overflow).isCompletedExceptionally();
            assertThatThrownBy(overflow::join).hasCauseInstanceOf(EmbedderRejectedException.class)
                    .cause().hasMessageContaining("queue_size 4")
                    .extracting(e -> ((EmbedderRejectedException) e).reason())
                    .isEqualTo(EmbedderRejectedException.Reason.QUEUE_FULL);
            assertThat(embedder.stats().rejections()).isEqualTo(1);
            assertThat(embedder.stats().queued()).isEqualTo(4);

            model.release.countDown();
            assertThat(inFlight).succeedsWithin(HANG_GUARD);
            for (int i = 0; i < 4; i++) {
                assertThat(queued.get(i).get()[0]).containsExactly(GatedModel.vector("queued " + i));
            }
        }
    }

    @Test
    void embed_textsQueuedWhileModelBusy_batchedAndRoutedToTheirCallers() throws Exception {
        GatedModel model = new GatedModel();
        try (MicroBatchingEmbedder embedder = gated(model, 32, 1024)) {
            CompletableFuture<float[][]> first = embedder.embed(List.of("first"));
            model.entered.await();
            ExecutorService callers = Executors.newFixedThreadPool(8);
            List<Future<CompletableFuture<float[][]>>> submitted = new ArrayList<>();
            List<List<String>> requests = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                List<String> request = i % 2 == 0 ? List.of("text " + i) : List.of("text " + i, "text " + i + "b");
                requests.add(request);
                submitted.add(callers.submit(() -> embedder.embed(request)));
            }
            for (Future<CompletableFuture<float[][]>> future : submitted) {
                future.get();
            }
            callers.shutdown();

            model.release.countDown();

            assertThat(first).succeedsWithin(HANG_GUARD);
            for (int i = 0; i < requests.size(); i++) {
                float[][] vectors = submitted.get(i).get().get();
                assertThat(vectors.length).isEqualTo(requests.get(i).size());
                for (int t = 0; t < vectors.length; t++) {
                    assertThat(vectors[t]).containsExactly(GatedModel.vector(requests.get(i).get(t)));
                }
            }
            MicroBatchStats stats = embedder.stats();
            assertThat(stats.texts()).isEqualTo(1 + 60);
            assertThat(stats.batchesOfSize(32)).as("60 texts queued behind a busy model: a full batch")
                    .isGreaterThanOrEqualTo(1);
            assertThat(stats.batches()).isLessThan(stats.texts());
        }
    }

    @Test
    void close_pendingFutures_failWithClosedAndModelIsFreed() throws Exception {
        GatedModel model = new GatedModel();
        MicroBatchingEmbedder embedder = gated(model, 1, 16);
        CompletableFuture<float[][]> inFlight = embedder.embed(List.of("in flight"));
        model.entered.await();
        CompletableFuture<float[][]> pending = embedder.embed(List.of("pending", "also pending"));
        Thread closer = new Thread(embedder::close, "closer");

        closer.start();

        assertThat(pending).failsWithin(HANG_GUARD).withThrowableOfType(Exception.class)
                .withCauseInstanceOf(EmbedderRejectedException.class);
        model.release.countDown();
        closer.join();
        assertThat(inFlight).as("the call in flight finishes").succeedsWithin(HANG_GUARD);
        assertThat(model.closed).isTrue();
        CompletableFuture<float[][]> afterClose = embedder.embed(List.of("late"));
        assertThat(afterClose).isCompletedExceptionally();
        assertThatThrownBy(afterClose::join).isInstanceOf(CompletionException.class)
                .cause().extracting(e -> ((EmbedderRejectedException) e).reason())
                .isEqualTo(EmbedderRejectedException.Reason.CLOSED);
    }

    @Test
    void embed_modelFails_futureFailsAndIsCounted() {
        GatedModel model = new GatedModel();
        model.release.countDown();
        try (MicroBatchingEmbedder embedder = gated(model, 1, 16)) {
            CompletableFuture<float[][]> failed = embedder.embed(List.of(GatedModel.FAIL));

            assertThat(failed).failsWithin(HANG_GUARD);
            assertThat(embedder.stats().failures()).isEqualTo(1);
            assertThat(embedder.embed(List.of("fine")).join()[0]).containsExactly(GatedModel.vector("fine"));
        }
    }

    private static MicroBatchingEmbedder gated(GatedModel model, int maxBatch, int queueSize) {
        EmbedderSettings settings = new EmbedderSettings(EmbedderSettings.BUNDLED, Optional.empty(),
                EmbedderSettings.defaults().pooling(), true, 512, maxBatch, Duration.ofMillis(2), queueSize, 1, 1, 1);
        MicroBatchingEmbedder embedder = new MicroBatchingEmbedder(model, settings);
        embedder.warmedUp().join();
        model.gated = true;
        return embedder;
    }

    /** A model whose calls, once gated, wait for the test to release them; its vectors encode the text. */
    private static final class GatedModel implements EmbedderModel {

        static final String FAIL = "fail";

        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean gated;
        volatile boolean closed;

        static float[] vector(String text) {
            return new float[] {text.length(), text.hashCode(), 1};
        }

        @Override
        public float[][] embed(List<String> texts) throws Exception {
            if (gated) {
                entered.countDown();
                release.await();
            }
            if (texts.contains(FAIL)) {
                throw new IllegalStateException("model failure for the test");
            }
            float[][] vectors = new float[texts.size()][];
            for (int i = 0; i < texts.size(); i++) {
                vectors[i] = vector(texts.get(i));
            }
            return vectors;
        }

        @Override
        public int dimension() {
            return 3;
        }

        @Override
        public String modelId() {
            return "gated";
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Distinct questions of varied length, so the tokenizer and the padding see realistic variety. */
    private static List<String> distinctQuestions(int count) {
        List<String> texts = new ArrayList<>(count);
        String[] asks = {"How do I change", "Where can I find", "Why was I charged for", "Can you explain"};
        String[] subjects = {"my delivery address", "the invoice for my order", "the premium plan", "my password"};
        for (int i = 0; i < count; i++) {
            String tail = i % 3 == 0 ? " after I moved to another country last month" : i % 3 == 1 ? " today" : "";
            texts.add(asks[i % asks.length] + " " + subjects[(i / asks.length) % subjects.length] + tail
                    + " (case " + i + ")?");
        }
        return texts;
    }
}
