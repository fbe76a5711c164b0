package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.cache.semantic.LearnedParameters;
import io.cachegate.cache.semantic.PairFeatures;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LogisticFitTest {

    /** Synthetic pairs: the label follows the cosine (feature 0) and is vetoed by a number mismatch (feature 8). */
    private static Object[] synthetic(int n, long seed) {
        Random random = new Random(seed);
        double[][] x = new double[n][PairFeatures.COUNT];
        boolean[] y = new boolean[n];
        for (int i = 0; i < n; i++) {
            double cosine = 0.85 + 0.15 * random.nextDouble();
            boolean numbersDiffer = random.nextInt(4) == 0;
            x[i][0] = cosine;
            x[i][1] = cosine * cosine;
            x[i][8] = numbersDiffer ? 1 : 0;
            x[i][5] = random.nextDouble();
            y[i] = !numbersDiffer && cosine + 0.03 * random.nextGaussian() > 0.92;
        }
        return new Object[] {x, y};
    }

    @Test
    void fit_syntheticPairs_convergesToTheRule() {
        Object[] data = synthetic(2000, 1);
        double[][] x = (double[][]) data[0];
        boolean[] y = (boolean[]) data[1];

        LogisticFit.Model short1 = LogisticFit.fit(x, y, 0.001, 10);
        LogisticFit.Model model = LogisticFit.fit(x, y, 0.001, 3000);

        assertThat(LogisticFit.logLoss(model, x, y)).isLessThan(LogisticFit.logLoss(short1, x, y)).isLessThan(0.3);
        assertThat(model.weights()[8]).isNegative();
        double[] close = new double[PairFeatures.COUNT];
        close[0] = 0.98;
        close[1] = 0.98 * 0.98;
        double[] vetoed = close.clone();
        vetoed[8] = 1;
        assertThat(model.probability(close)).isGreaterThan(0.9);
        assertThat(model.probability(vetoed)).isLessThan(0.1);
    }

    @Test
    void fit_sameExamples_sameWeights() {
        Object[] data = synthetic(500, 2);
        LogisticFit.Model a = LogisticFit.fit((double[][]) data[0], (boolean[]) data[1], 0.01, 500);
        LogisticFit.Model b = LogisticFit.fit((double[][]) data[0], (boolean[]) data[1], 0.01, 500);

        assertThat(a.weights()).containsExactly(b.weights());
        assertThat(a.bias()).isEqualTo(b.bias());
    }

    @Test
    void parameters_roundTripThroughTheFileFormat() throws Exception {
        Object[] data = synthetic(500, 3);
        LogisticFit.Model model = LogisticFit.fit((double[][]) data[0], (boolean[]) data[1], 0.01, 500);
        StringWriter out = new StringWriter();
        model.parameters("m", 0.9).write(out, List.of("test"));

        LearnedParameters read = LearnedParameters.read(new StringReader(out.toString()));
        double[] x = ((double[][]) data[0])[0];

        // Six decimals in the file: the same probability to about 1e-4.
        assertThat(read.probability(x)).isCloseTo(model.probability(x), org.assertj.core.api.Assertions.within(1e-3));
    }

    @Test
    void fit_noExamples_isRejected() {
        assertThatThrownBy(() -> LogisticFit.fit(new double[0][], new boolean[0], 0.01, 10))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
