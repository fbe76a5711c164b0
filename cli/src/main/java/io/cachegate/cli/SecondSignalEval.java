package io.cachegate.cli;

import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.LearnedParameters;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.cache.semantic.Neighbour;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code eval-semantic --second-signal e5}: whether a second embedder's agreement, asked only about the learned
 * decision's uncertain candidates, buys precision at an equal hit rate. The learned decision runs with its
 * minimum probability lowered to the band's low end; a best candidate at or above the band's high end is a
 * hit as before, one inside the band is a hit only when the second model's cosine of the two texts reaches
 * the agreement threshold. Each agreement threshold is compared with the learned decision alone at the
 * minimum probability that gives the same hit rate (interpolated along its own sweep).
 */
final class SecondSignalEval {

    /** One query of the evaluation: its text, vector and neighbours, and how a match of it is judged. */
    record Item(String text, float[] vector, List<Neighbour> neighbours, Function<Neighbour, Outcome> judge) {
    }

    /**
     * How a hit counts: {@code towardsHitRate} adds to the x-axis (pairs: a true positive, towards recall;
     * cache: an in-scope query's hit, towards the hit rate), {@code wrong} to the false hits.
     */
    record Outcome(boolean towardsHitRate, boolean wrong) {
    }

    /** A point of a curve: the hit rate (recall for pairs) and the share of hits that are wrong. */
    record Point(double setting, double hitRate, double falseHitRate, long hits) {
    }

    private final EmbeddingDiskCache second;
    private final String prefix;
    private final LearnedParameters parameters;
    private final double threshold;
    private final double bandLow;
    private final double bandHigh;

    /**
     * @param second the second model's vectors (texts are embedded with {@code prefix} in front)
     * @param prefix what the second model wants before a text, e.g. e5's {@code "query: "}
     */
    SecondSignalEval(EmbeddingDiskCache second, String prefix, LearnedParameters parameters, double threshold,
                     double bandLow, double bandHigh) {
        if (!(bandLow >= 0 && bandLow < bandHigh && bandHigh <= 1)) {
            throw new IllegalArgumentException("--band must be LOW,HIGH with 0 <= LOW < HIGH <= 1, was "
                    + bandLow + "," + bandHigh);
        }
        this.second = second;
        this.prefix = prefix;
        this.parameters = parameters;
        this.threshold = threshold;
        this.bandLow = bandLow;
        this.bandHigh = bandHigh;
    }

    /**
     * The report: the learned decision's curve over its minimum probability, the second signal's curve over
     * its agreement threshold, and for each of the latter the learned decision's false-hit rate at its hit rate.
     */
    Map<String, Object> run(List<Item> items, double denominator) throws Exception {
        LearnedDecision atBandLow = new LearnedDecision(threshold, parameters.withMinProbability(bandLow));
        List<Neighbour> best = new ArrayList<>(items.size());
        List<Double> probability = new ArrayList<>(items.size());
        List<String> bandTexts = new ArrayList<>();
        for (Item item : items) {
            Optional<MatchDecision.Match> match = atBandLow.decide(item.text(), item.vector(), item.neighbours());
            Neighbour n = match.map(MatchDecision.Match::neighbour).orElse(null);
            double p = n == null ? -1 : atBandLow.probability(item.text(), n.text(), n.similarity());
            best.add(n);
            probability.add(p);
            if (n != null && p < bandHigh) {
                bandTexts.add(prefix + item.text());
                bandTexts.add(prefix + n.text());
            }
        }
        float[][] bandVectors = second.embed(bandTexts);
        double[] agreement = new double[items.size()];
        int b = 0;
        for (int i = 0; i < items.size(); i++) {
            agreement[i] = Double.NaN;
            if (best.get(i) != null && probability.get(i) < bandHigh) {
                agreement[i] = BruteForceNeighbours.dot(bandVectors[2 * b], bandVectors[2 * b + 1]);
                b++;
            }
        }

        List<Point> learned = new ArrayList<>();
        for (double m : sweep(Math.min(bandLow, 0.5), 0.999, 0.005)) {
            LearnedDecision decision = new LearnedDecision(threshold, parameters.withMinProbability(m));
            learned.add(point(m, items, denominator, i -> decision.decide(items.get(i).text(), items.get(i).vector(),
                    items.get(i).neighbours()).map(MatchDecision.Match::neighbour).orElse(null)));
        }
        List<Map<String, Object>> withSecond = new ArrayList<>();
        for (double s : sweep(0.70, 0.99, 0.01)) {
            Point point = point(s, items, denominator, i -> {
                Neighbour n = best.get(i);
                return n != null && (probability.get(i) >= bandHigh || agreement[i] >= s) ? n : null;
            });
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("agreement_threshold", round(s));
            row.put("hit_rate", round(point.hitRate()));
            row.put("false_hit_rate", round(point.falseHitRate()));
            row.put("learned_false_hit_rate_at_equal_hit_rate", round(falseHitRateAt(learned, point.hitRate())));
            withSecond.add(row);
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("model", second.modelId());
        report.put("band", List.of(bandLow, bandHigh));
        report.put("band_share_of_queries", round(bandTexts.size() / 2.0 / items.size()));
        report.put("second_embedded_now", second.computed());
        report.put("learned", learned.stream().map(p -> Map.of("min_probability", round(p.setting()),
                "hit_rate", round(p.hitRate()), "false_hit_rate", round(p.falseHitRate()))).toList());
        report.put("with_second_signal", withSecond);
        return report;
    }

    /** Prints the second signal's curve beside the learned decision at equal hit rate. */
    @SuppressWarnings("unchecked")
    static void print(Map<String, Object> report, boolean pairMode) {
        System.out.println("second signal " + report.get("model") + " on learned probabilities in " + report.get("band")
                + " (" + report.get("band_share_of_queries") + " of queries; " + report.get("second_embedded_now")
                + " texts embedded now)");
        String hit = pairMode ? "recall" : "hit";
        String wrong = pairMode ? "1-P" : "false";
        System.out.println(String.format(Locale.ROOT, "%-9s %9s %9s %14s %9s", "agree>=", hit, wrong,
                "learned " + wrong, "delta"));
        for (Map<String, Object> row : (List<Map<String, Object>>) report.get("with_second_signal")) {
            double f = ((Number) row.get("false_hit_rate")).doubleValue();
            double l = ((Number) row.get("learned_false_hit_rate_at_equal_hit_rate")).doubleValue();
            System.out.println(String.format(Locale.ROOT, "%-9.2f %9.4f %9.4f %14.4f %+9.4f",
                    ((Number) row.get("agreement_threshold")).doubleValue(),
                    ((Number) row.get("hit_rate")).doubleValue(), f, l, f - l));
        }
    }

    private static Point point(double setting, List<Item> items, double denominator,
                               java.util.function.IntFunction<Neighbour> hitOf) {
        long hits = 0;
        long towards = 0;
        long wrong = 0;
        for (int i = 0; i < items.size(); i++) {
            Neighbour n = hitOf.apply(i);
            if (n == null) {
                continue;
            }
            Outcome outcome = items.get(i).judge().apply(n);
            hits++;
            towards += outcome.towardsHitRate() ? 1 : 0;
            wrong += outcome.wrong() ? 1 : 0;
        }
        return new Point(setting, denominator == 0 ? 0 : towards / denominator, hits == 0 ? 0 : (double) wrong / hits,
                hits);
    }

    /**
     * The learned curve's false-hit rate at a hit rate, linear between the two sweep points around it; NaN
     * outside the curve (a hit rate the learned decision alone never reaches).
     */
    static double falseHitRateAt(List<Point> curve, double hitRate) {
        for (int i = 0; i + 1 < curve.size(); i++) {
            Point a = curve.get(i);
            Point c = curve.get(i + 1);
            double lo = Math.min(a.hitRate(), c.hitRate());
            double hi = Math.max(a.hitRate(), c.hitRate());
            if (hitRate >= lo && hitRate <= hi) {
                if (hi == lo) {
                    return Math.min(a.falseHitRate(), c.falseHitRate());
                }
                double t = (hitRate - a.hitRate()) / (c.hitRate() - a.hitRate());
                return a.falseHitRate() + t * (c.falseHitRate() - a.falseHitRate());
            }
        }
        return Double.NaN;
    }

    private static List<Double> sweep(double from, double to, double step) {
        List<Double> values = new ArrayList<>();
        for (int i = 0; from + i * step <= to + 1e-9; i++) {
            values.add(round(from + i * step));
        }
        return values;
    }

    private static double round(double value) {
        return Double.isNaN(value) ? value : Math.round(value * 10_000) / 10_000.0;
    }
}
