package io.cachegate.cli;

import io.cachegate.cache.semantic.LearnedParameters;
import java.util.Arrays;

/**
 * Fits the logistic regression of {@code fit-decision}: full-batch gradient descent with an L2 penalty on
 * standardised features, a fixed step and a fixed number of iterations, so the same examples always give the
 * same weights. The standardisation is folded back into the weights, so the runtime scores raw features.
 */
final class LogisticFit {

    private LogisticFit() {
    }

    /** The fitted intercept and weights over raw features. */
    record Model(double bias, double[] weights) {

        double probability(double[] x) {
            double z = bias;
            for (int i = 0; i < weights.length; i++) {
                z += weights[i] * x[i];
            }
            return 1.0 / (1.0 + Math.exp(-z));
        }

        LearnedParameters parameters(String modelId, double minProbability) {
            return new LearnedParameters(modelId, minProbability, bias, weights);
        }
    }

    /**
     * @param x one feature row per example
     * @param y the labels
     * @param l2 the penalty on the (standardised) weights, per example
     * @param iterations gradient steps
     */
    static Model fit(double[][] x, boolean[] y, double l2, int iterations) {
        int n = x.length;
        if (n == 0 || n != y.length) {
            throw new IllegalArgumentException("need as many labels as examples, and at least one: " + n + ", " + y.length);
        }
        int d = x[0].length;
        double[] mean = new double[d];
        double[] scale = new double[d];
        for (double[] row : x) {
            for (int j = 0; j < d; j++) {
                mean[j] += row[j] / n;
            }
        }
        for (double[] row : x) {
            for (int j = 0; j < d; j++) {
                scale[j] += (row[j] - mean[j]) * (row[j] - mean[j]) / n;
            }
        }
        for (int j = 0; j < d; j++) {
            // A constant feature gets scale 1 and, through the penalty, weight 0.
            scale[j] = scale[j] > 1e-12 ? Math.sqrt(scale[j]) : 1.0;
        }
        double[][] z = new double[n][d];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                z[i][j] = (x[i][j] - mean[j]) / scale[j];
            }
        }
        double[] w = new double[d];
        double b = 0;
        double step = 0.5;
        double[] grad = new double[d];
        for (int it = 0; it < iterations; it++) {
            Arrays.fill(grad, 0);
            double gradB = 0;
            for (int i = 0; i < n; i++) {
                double s = b;
                for (int j = 0; j < d; j++) {
                    s += w[j] * z[i][j];
                }
                double err = 1.0 / (1.0 + Math.exp(-s)) - (y[i] ? 1 : 0);
                gradB += err / n;
                for (int j = 0; j < d; j++) {
                    grad[j] += err * z[i][j] / n;
                }
            }
            for (int j = 0; j < d; j++) {
                w[j] -= step * (grad[j] + l2 * w[j]);
            }
            b -= step * gradB;
        }
        double[] raw = new double[d];
        double bias = b;
        for (int j = 0; j < d; j++) {
            raw[j] = w[j] / scale[j];
            bias -= raw[j] * mean[j];
        }
        return new Model(bias, raw);
    }

    /** The mean log loss of the model on the examples: the fitter prints it, tests check it falls. */
    static double logLoss(Model model, double[][] x, boolean[] y) {
        double sum = 0;
        for (int i = 0; i < x.length; i++) {
            double p = Math.min(Math.max(model.probability(x[i]), 1e-12), 1 - 1e-12);
            sum -= y[i] ? Math.log(p) : Math.log(1 - p);
        }
        return sum / x.length;
    }
}
