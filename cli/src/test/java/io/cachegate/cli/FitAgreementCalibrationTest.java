package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.cache.semantic.NeighbourhoodAgreement;
import io.cachegate.cache.semantic.ProbabilityBins;
import org.junit.jupiter.api.Test;

class FitAgreementCalibrationTest {

    /** The regression's probability is the sigmoid of the first feature alone. */
    private static final double[] FIRST_FEATURE = {1, 0, 0, 0, 0};

    private static double[] at(double p) {
        return new double[] {Math.log(p / (1 - p)), 0, 0, 0};
    }

    @Test
    void eachBinGetsItsShareOfRightExamples_shrunkByOneOfEach() {
        double[][] x = new double[20][];
        boolean[] y = new boolean[20];
        for (int i = 0; i < 10; i++) {
            x[i] = at(0.85);
            y[i] = i < 8;
            x[10 + i] = at(0.995);
            y[10 + i] = true;
        }

        double[] calibrated = FitAgreementCommand.calibrate(FIRST_FEATURE, x, y);

        assertThat(calibrated[ProbabilityBins.of(0.85)]).isCloseTo(9.0 / 12, within(1e-9));
        assertThat(calibrated[ProbabilityBins.of(0.995)]).isCloseTo(11.0 / 12, within(1e-9));
        assertThat(calibrated[ProbabilityBins.of(0.5)]).as("no examples").isNaN();
        assertThat(NeighbourhoodAgreement.calibrated(0.5, calibrated)).as("a bin without examples keeps p")
                .isEqualTo(0.5);
    }

    @Test
    void aBinRightLessOftenThanTheOneBelow_isPooledWithIt() {
        double[][] x = new double[20][];
        boolean[] y = new boolean[20];
        for (int i = 0; i < 10; i++) {
            x[i] = at(0.85);
            y[i] = true;
            x[10 + i] = at(0.995);
            y[10 + i] = i < 5;
        }

        double[] calibrated = FitAgreementCommand.calibrate(FIRST_FEATURE, x, y);

        assertThat(calibrated[ProbabilityBins.of(0.85)]).isCloseTo(16.0 / 22, within(1e-9));
        assertThat(calibrated[ProbabilityBins.of(0.995)]).isCloseTo(16.0 / 22, within(1e-9));
    }
}
