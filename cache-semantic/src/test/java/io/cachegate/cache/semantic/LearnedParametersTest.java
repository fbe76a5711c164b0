package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class LearnedParametersTest {

    static LearnedParameters cosineOnly(double minProbability) {
        double[] weights = new double[PairFeatures.COUNT];
        weights[0] = 100;
        // p = 0.5 at cosine 0.9, rising steeply above.
        return new LearnedParameters("test-model", minProbability, -90, weights);
    }

    @Test
    void writeThenRead_roundTrips() throws Exception {
        double[] weights = new double[PairFeatures.COUNT];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = i - 3.25;
        }
        LearnedParameters original = new LearnedParameters("m@1/cls/512", 0.9, -1.5, weights);
        StringWriter out = new StringWriter();

        original.write(out, List.of("a comment"));
        LearnedParameters read = LearnedParameters.read(new StringReader(out.toString()));

        assertThat(out.toString()).startsWith("# a comment\n");
        assertThat(read.modelId()).isEqualTo("m@1/cls/512");
        assertThat(read.minProbability()).isEqualTo(0.9);
        assertThat(read.bias()).isEqualTo(-1.5);
        assertThat(read.weights()).containsExactly(weights);
    }

    @Test
    void read_namesEveryMissingUnknownOrMalformedKey() {
        String text = "model=m\nmin_probability=high\nbias=0\nweight.colour=1\n";

        assertThatThrownBy(() -> LearnedParameters.read(new StringReader(text)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min_probability: not a number")
                .hasMessageContaining("weight.colour: unknown key")
                .hasMessageContaining("weight.cosine: missing");
    }

    @Test
    void constructor_rejectsNonFiniteWeightsAndOutOfRangeProbability() {
        double[] weights = new double[PairFeatures.COUNT];
        weights[2] = Double.NaN;

        assertThatThrownBy(() -> new LearnedParameters("m", 1.5, 0, weights))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min_probability").hasMessageContaining("weight.word_jaccard");
        assertThatThrownBy(() -> new LearnedParameters("m", 0.5, 0, new double[2]))
                .hasMessageContaining("weights: expected " + PairFeatures.COUNT);
    }

    @Test
    void bundled_loadsAndIsValid() {
        LearnedParameters bundled = LearnedParameters.bundled();

        assertThat(bundled.modelId()).startsWith("bge-small-en-v1.5-q@");
        assertThat(bundled.minProbability()).isBetween(0.5, 1.0);
        // More similar is more likely the same request.
        assertThat(bundled.weights()[0]).isPositive();
    }

    @Test
    void weights_areACopy() {
        LearnedParameters p = cosineOnly(0.5);
        p.weights()[0] = 0;

        assertThat(p.weights()[0]).isEqualTo(100);
    }
}
