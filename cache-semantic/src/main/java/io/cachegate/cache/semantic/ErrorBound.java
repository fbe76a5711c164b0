package io.cachegate.cache.semantic;

/**
 * An always-valid upper confidence bound on an error rate from a stream of right/wrong verdicts: a
 * Beta-Bernoulli mixture confidence sequence (Robbins' method of mixtures). For a true rate {@code p} the
 * mixture likelihood ratio {@code M_n(p) = B(a + k, b + n - k) / B(a, b) / (p^k (1 - p)^(n - k))} after
 * {@code k} wrong of {@code n} verdicts is a non-negative martingale with mean 1 when the verdicts are
 * independent Bernoulli({@code p}) draws (or exchangeable: de Finetti makes them so given their limit), so by
 * Ville's inequality {@code P(sup_n M_n(p) >= 1/delta) <= delta}: the true rate lies below {@link #upper} at
 * <em>every</em> n at once with probability at least {@code 1 - delta}. Checking the bound after each verdict,
 * as the decision does, therefore costs nothing in validity (a fixed-n interval checked repeatedly would not
 * hold).
 *
 * <p>The Beta prior only decides where the bound is tightest, never whether it holds: with its mean at the budget
 * ({@code a = 1}, {@code b = 1/budget - 1}) it costs about {@code (ln(1 + n * budget) + ln(1/delta)) / n} above the
 * observed rate near the budget; with no wrong verdict, {@code delta = 0.05} and a budget of 1% it falls to 1% after
 * 473 verdicts (818 at {@code delta / 20}). A mean under the budget ({@link #ErrorBound(double, double, double)})
 * favours classes well under it: at a third of the budget, 718 at {@code delta / 20} and 999 rather than 1,091 with
 * one wrong verdict, and no more than the budget-mean prior needs with up to 20 wrong (the error budget's classes use
 * it: {@link ClassSpending}).
 */
public final class ErrorBound {

    private static final int BISECTIONS = 48;
    private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
        771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
        9.9843695780195716e-6, 1.5056327351493116e-7};

    private final double a;
    private final double b;
    private final double logThreshold;

    /**
     * @param budget where the bound should be tightest (the error budget), in (0, 0.5): the prior's mean
     * @param delta the probability that the true rate ever exceeds the bound, in (0, 1)
     */
    public ErrorBound(double budget, double delta) {
        this(budget, delta, budget);
    }

    /**
     * @param budget the error budget, in (0, 0.5)
     * @param delta the probability that the true rate ever exceeds the bound, in (0, 1)
     * @param priorMean the mean of the mixture's Beta(1, b) prior, in (0, budget]: any value keeps the bound valid;
     *                  a mean under the budget makes it fall under the budget after fewer verdicts when the true rate
     *                  is well under it (the error budget's classes use a third of the budget:
     *                  {@link ClassSpending.Plan#priorShrink})
     */
    public ErrorBound(double budget, double delta, double priorMean) {
        if (!(budget > 0 && budget < 0.5)) {
            throw new IllegalArgumentException("budget must be in (0, 0.5), was " + budget);
        }
        if (!(delta > 0 && delta < 1)) {
            throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
        }
        if (!(priorMean > 0 && priorMean <= budget)) {
            throw new IllegalArgumentException("priorMean must be in (0, budget], was " + priorMean);
        }
        this.a = 1;
        this.b = 1 / priorMean - 1;
        this.logThreshold = Math.log(1 / delta);
    }

    /** The upper end of the confidence sequence after {@code wrong} of {@code n} verdicts; 1 with none. */
    public double upper(long wrong, long n) {
        if (wrong < 0 || wrong > n) {
            throw new IllegalArgumentException("wrong must be in [0, n], was " + wrong + " of " + n);
        }
        if (n == 0) {
            return 1;
        }
        double logMixture = logBeta(a + wrong, b + n - wrong) - logBeta(a, b);
        double lo = (double) wrong / n; // M_n is smallest at the observed rate, growing either side
        if (wrong == n || logRatio(logMixture, wrong, n, 1 - 1e-12) < logThreshold) {
            return 1;
        }
        double hi = 1 - 1e-12;
        for (int i = 0; i < BISECTIONS; i++) {
            double mid = (lo + hi) / 2;
            if (logRatio(logMixture, wrong, n, mid) < logThreshold) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    /** log M_n(p). */
    private static double logRatio(double logMixture, long wrong, long n, double p) {
        return logMixture - (wrong == 0 ? 0 : wrong * Math.log(p)) - (n - wrong) * Math.log1p(-p);
    }

    static double logBeta(double x, double y) {
        return logGamma(x) + logGamma(y) - logGamma(x + y);
    }

    /** Lanczos' approximation (g = 7), about 15 significant digits for x > 0. */
    static double logGamma(double x) {
        if (x < 0.5) {
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double z = x - 1;
        double sum = LANCZOS[0];
        for (int i = 1; i < LANCZOS.length; i++) {
            sum += LANCZOS[i] / (z + i);
        }
        double t = z + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }
}
