package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bundled fp32 model ({@code bundled-fp32}): unlike the int8 one, a text's vector does not depend on its
 * batch-mates, which is why it may batch by default; and its vectors never share an index with int8 ones.
 */
class OnnxEmbedderFp32Test {

    private static final EmbedderSettings FP32 = EmbedderSettings.defaultsFor(EmbedderSettings.BUNDLED_FP32,
            Optional.empty());

    private static OnnxEmbedder model;

    @BeforeAll
    static void load() {
        // Fused whether or not it is faster: fp32 gains only 5-8% a call, too little for a test to count on the
        // open's timing (which OnnxEmbedderFusionTest checks on int8).
        model = OnnxEmbedder.open(FP32, OnnxEmbedder.Fusion.CHECKED);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void open_fp32_runsEveryLayerNormFusedWithItsResidualAdd() {
        // That the rewrite computes the same values: SkipLayerNormFusionTest; against the unfused int8 model:
        // OnnxEmbedderFusionTest. A second fp32 model only to compare would cost this build some 8 s.
        assertThat(model.fusedLayerNorms()).isEqualTo(25);
    }

    @Test
    void modelId_fp32_differsFromInt8() {
        String int8 = OnnxModelFiles.load(EmbedderSettings.defaults()).id(EmbedderSettings.defaults());

        assertThat(model.modelId()).matches("bge-small-en-v1\\.5@[0-9a-f]{8}/cls/512").isNotEqualTo(int8);
        assertThat(model.dimension()).isEqualTo(384);
    }

    @Test
    void embed_batchWithOtherTexts_equalsSingle() throws Exception {
        List<String> texts = List.of("How do I reset my password?",
                "A much longer text about shipping times to Norway in winter, which pads the shorter ones.",
                "Cancel my order", "12345");

        float[][] batch = model.embed(texts);

        for (int i = 0; i < texts.size(); i++) {
            double cosine = OnnxEmbedderTest.dot(batch[i], model.embed(List.of(texts.get(i)))[0]);
            assertThat(cosine).as("text %d", i).isGreaterThanOrEqualTo(0.99999);
        }
    }

    @Test
    void embed_paraphrase_closerThanUnrelated() throws Exception {
        float[][] v = model.embed(List.of("How do I reset my password?", "I forgot my password, how can I change it?",
                "What time does the store open on Sunday?"));

        assertThat(OnnxEmbedderTest.dot(v[0], v[1])).isGreaterThan(OnnxEmbedderTest.dot(v[0], v[2]) + 0.1);
    }

    @Test
    void defaults_fp32_batchesAndInt8DoesNot() {
        assertThat(FP32.maxBatch()).isEqualTo(EmbedderSettings.FP32_MAX_BATCH).isGreaterThan(1);
        assertThat(EmbedderSettings.defaults().maxBatch()).isEqualTo(1);
    }
}
