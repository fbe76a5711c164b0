package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bundled parameters with the bundled model's real cosines, on pairs written for this test. */
class LearnedDecisionModelTest {

    private static OnnxEmbedder model;
    private final LearnedDecision decision = LearnedDecision.bundled(0.85);

    @BeforeAll
    static void load() {
        model = OnnxEmbedder.open(EmbedderSettings.defaults());
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void bundledParameters_fitForTheBundledModel() {
        assertThat(decision.parameters().modelId()).isEqualTo(model.modelId());
    }

    @Test
    void decide_sameQuestionReworded_isAHit() throws Exception {
        assertThat(hit("How do I reset my password?", "How can I reset my password?")).isTrue();
    }

    @Test
    void decide_differentPlan_isAMiss() throws Exception {
        assertThat(hit("Can I get a refund for annual plans?", "Can I get a refund for monthly plans?")).isFalse();
    }

    private boolean hit(String query, String cached) throws Exception {
        float[][] v = model.embed(List.of(query, cached));
        float cosine = 0;
        for (int i = 0; i < v[0].length; i++) {
            cosine += v[0][i] * v[1][i];
        }
        return decision.decide(query, v[0], List.of(new Neighbour("k", cosine, cached, 0, 0))).isPresent();
    }
}
