package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bundled models run with their residual adds and layer normalisations fused ({@link SkipLayerNormFusion}): all
 * 25 of bge-small's pairs, the same model id, and vectors that agree with the unfused model's within the int8
 * model's own quantisation noise (fp32: {@link OnnxEmbedderFp32Test}; the arithmetic: {@link SkipLayerNormFusionTest}).
 */
class OnnxEmbedderFusionTest {

    private static final List<String> TEXTS = List.of(
            "How do I reset my card's PIN?", "I want to change the PIN of my card", "What is the exchange rate today?",
            "My transfer to Germany has not arrived yet", "Can I top up with Apple Pay?", "why was my card declined",
            "Please cancel my last transaction, it was a mistake.", "Where can I find my IBAN?",
            "What's the weather like in Paris this weekend?", "Set an alarm for 6:30 tomorrow morning",
            "Translate 'good morning' into Spanish", "How many calories are in a banana?",
            "Do you support two-factor authentication, and how do I enable it on my account?", "ok", "thanks!",
            "Tell me a joke about programmers.", "What is 17 times 23?", "Book a table for four at 8 pm on Friday.");

    @Test
    void bundledInt8_everyPairFused_vectorsWithinQuantisationNoise() throws Exception {
        EmbedderSettings settings = EmbedderSettings.defaults();
        try (OnnxEmbedder fused = OnnxEmbedder.open(settings, OnnxEmbedder.Fusion.CHECKED);
             OnnxEmbedder unfused = OnnxEmbedder.open(settings, OnnxEmbedder.Fusion.NONE)) {
            assertThat(fused.fusedLayerNorms()).as("bge-small: 12 layers × 2 normalisations + the embeddings'")
                    .isEqualTo(25);
            assertThat(unfused.fusedLayerNorms()).isZero();
            assertThat(fused.modelId()).isEqualTo(unfused.modelId());
            double least = leastCosine(fused.embed(TEXTS), unfused.embed(TEXTS));
            // Measured: 0.998 and up (the activations' dynamic quantisation turns float rounding into this much).
            assertThat(least).isGreaterThan(0.995);
        }
    }

    @Test
    void bundledInt8_servedFused_whereItRunsFaster() throws Exception {
        // ONNX Runtime 1.29 (this build's) runs a LayerNormalization of 25 × 384 floats in 45-55 µs and the fused
        // SkipLayerNormalization in 8-18: 11-20% less a call on the machines measured, which 15 interleaved pairs tell
        // apart. On a runtime where the fused kernel is the slower (1.30), this would be 0 and the log would say why.
        try (OnnxEmbedder served = OnnxEmbedder.open(EmbedderSettings.defaults());
             OnnxEmbedder again = OnnxEmbedder.open(EmbedderSettings.defaults())) {
            assertThat(served.fusedLayerNorms()).isEqualTo(25);
            assertThat(again.fusedLayerNorms()).as("the decision is kept: same bytes, same runtime").isEqualTo(25);
            assertThat(leastCosine(served.embed(TEXTS), again.embed(TEXTS))).isGreaterThan(0.99999);
        }
    }

    private static double leastCosine(float[][] a, float[][] b) {
        double least = 1;
        for (int i = 0; i < a.length; i++) {
            least = Math.min(least, Vectors.cosine(a[i], b[i]));
        }
        return least;
    }
}
