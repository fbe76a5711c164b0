package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bundled model's vectors: what the semantic cache relies on, checked on sentences written for it. */
class OnnxEmbedderTest {

    private static OnnxEmbedder model;

    @BeforeAll
    static void load() {
        model = OnnxEmbedder.open(EmbedderSettings.defaults());
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void dimension_bundledModel_is384() throws Exception {
        assertThat(model.dimension()).isEqualTo(384);
        assertThat(model.embed(List.of("hello"))[0]).hasSize(384);
    }

    @Test
    void modelId_namesModelHashAndPooling() {
        assertThat(model.modelId()).matches("bge-small-en-v1\\.5-q@[0-9a-f]{8}/cls/512");
    }

    @Test
    void embed_sameTextTwice_identicalVectors() throws Exception {
        String text = "Which plan includes priority support?";

        assertThat(model.embed(List.of(text))[0]).containsExactly(model.embed(List.of(text))[0]);
    }

    @Test
    void embed_anyText_unitNorm() throws Exception {
        float[][] vectors = model.embed(List.of("Short.", "A somewhat longer sentence about shipping times to"
                + " Norway in winter.", "12345"));

        for (float[] vector : vectors) {
            assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
        }
    }

    @Test
    void embed_batchOfOneTextRepeated_equalsSingle() throws Exception {
        String text = "How long does a bank transfer take to arrive?";

        float[][] batch = model.embed(List.of(text, text, text));

        float[] single = model.embed(List.of(text))[0];
        for (float[] vector : batch) {
            assertThat(vector).containsExactly(single);
        }
    }

    /**
     * Why {@code max_batch} defaults to 1: the int8 model quantises activations with one scale per call,
     * so a text's vector depends a little on its batch-mates. Pinned here so a model that batches exactly
     * (float32) or a runtime change shows up.
     */
    @Test
    void embed_batchWithOtherTexts_driftsSlightlyFromSingle() throws Exception {
        List<String> texts = List.of("Cancel my order", "How long does a bank transfer take to arrive?",
                "Is the museum open on Mondays during the summer holidays, and do children pay?");

        float[][] batch = model.embed(texts);

        for (int i = 0; i < texts.size(); i++) {
            double cosine = dot(batch[i], model.embed(List.of(texts.get(i)))[0]);
            assertThat(cosine).as("text %d", i).isGreaterThan(0.99).isLessThan(1 - 1e-5);
        }
    }

    @Test
    void embed_paraphrases_closerThanUnrelated() throws Exception {
        float[][] v = model.embed(List.of(
                "How do I reset my password?",
                "I forgot my password, how can I change it?",
                "What is the capital of France?",
                "Can I get my money back for a damaged parcel?",
                "The package arrived broken, I want a refund."));

        assertThat(dot(v[0], v[1])).isGreaterThan(dot(v[0], v[2])).isGreaterThan(0.0);
        assertThat(dot(v[3], v[4])).isGreaterThan(dot(v[3], v[2])).isGreaterThan(dot(v[3], v[0]));
    }

    @Test
    void embed_fiveThousandWords_truncatedToAUnitVector() throws Exception {
        StringBuilder text = new StringBuilder("The service was interrupted. ");
        for (int i = 0; i < 5000; i++) {
            text.append("word").append(i % 97).append(' ');
        }
        String longText = text.toString();
        String sameStart = longText.substring(0, longText.length() / 2);

        float[] vector = model.embed(List.of(longText))[0];

        assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
        assertThat(vector).as("only the first 512 tokens count").containsExactly(model.embed(List.of(sameStart))[0]);
    }

    @Test
    void embed_emptyAndWhitespace_giveUnitVectors() throws Exception {
        float[][] vectors = model.embed(List.of("", "   ", "\n\t"));

        for (float[] vector : vectors) {
            assertThat(vector).hasSize(384);
            assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
        }
        assertThat(model.embed(List.of())).isEmpty();
    }

    static double norm(float[] v) {
        return Math.sqrt(dot(v, v));
    }

    static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }
}
