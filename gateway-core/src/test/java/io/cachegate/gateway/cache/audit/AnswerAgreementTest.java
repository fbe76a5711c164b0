package io.cachegate.gateway.cache.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.Embedder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AnswerAgreementTest {

    /** Vectors by text; a text it does not know is refused, as a full embedder refuses. */
    private static final class Vectors implements Embedder {
        private final Map<String, float[]> vectors;
        final AtomicInteger calls = new AtomicInteger();

        Vectors(Map<String, float[]> vectors) {
            this.vectors = vectors;
        }

        @Override
        public CompletableFuture<float[][]> embed(List<String> texts) {
            calls.incrementAndGet();
            float[] v = vectors.get(texts.get(0));
            return v == null ? CompletableFuture.failedFuture(new IllegalStateException("the embedder is full"))
                    : CompletableFuture.completedFuture(new float[][] {v});
        }

        @Override
        public int dimension() {
            return 2;
        }

        @Override
        public String modelId() {
            return "test";
        }

        @Override
        public void close() {
        }
    }

    private final Vectors embedder = new Vectors(Map.of(
            "Paris is the capital.", new float[] {1, 0},
            "The capital is Paris.", new float[] {0.95f, 0.31f},
            "Berlin.", new float[] {0, 1}));
    private final AnswerAgreement agreement = new AnswerAgreement(embedder, 0.9);

    @Test
    void equalTexts_agree_withoutEmbedding() {
        assertThat(agree(json("Paris  is the\\ncapital."), json("Paris is the capital."))).contains(true);
        assertThat(embedder.calls).hasValue(0);
    }

    @Test
    void aStreamedAnswer_agreesWithTheSameTextAsJson() {
        String sse = "data: {\"choices\":[{\"delta\":{\"content\":\"Paris is \"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"the capital.\"}}]}\n\ndata: [DONE]\n\n";
        assertThat(agree(sse, json("Paris is the capital."))).contains(true);
    }

    @Test
    void differentTexts_agreeByTheirEmbeddings() {
        assertThat(agree(json("Paris is the capital."), json("The capital is Paris."))).contains(true);
        assertThat(agree(json("Paris is the capital."), json("Berlin."))).contains(false);
    }

    @Test
    void noTextOrNoVector_isNoVerdict() {
        assertThat(agree("{\"data\":[]}", json("Berlin."))).isEmpty();
        assertThat(agree(json("Unknown to the embedder."), json("Berlin."))).isEmpty();
    }

    @Test
    void atSimilarityOne_onlyEqualTextAgrees() {
        AnswerAgreement strict = new AnswerAgreement(embedder, 1);
        assertThat(strict.agree(strict.answer(bytes(json("Paris is the capital."))),
                strict.answer(bytes(json("The capital is Paris."))))).succeedsWithin(java.time.Duration.ofSeconds(1))
                .isEqualTo(Optional.of(false));
        assertThat(embedder.calls).hasValue(0);
    }

    private Optional<Boolean> agree(String served, String fresh) {
        return agreement.agree(agreement.answer(bytes(served)), agreement.answer(bytes(fresh))).join();
    }

    private static String json(String content) {
        return "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + content
                + "\"},\"finish_reason\":\"stop\"}]}";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
