package io.cachegate.cache.semantic;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The fitted logistic regression of {@link LearnedDecision}: a bias and one weight per {@link PairFeatures}
 * name, over the raw features (standardisation is folded in at fitting time, so scoring is one dot product),
 * the minimum probability for a hit, and the embedding model the weights were fitted for: a cosine of another
 * model means something else. Stored as a properties file; loading checks every weight is there and finite.
 */
public final class LearnedParameters {

    /** The parameters shipped in this module, written by {@code cachegate fit-decision}. */
    public static final String BUNDLED_RESOURCE = "learned-decision.properties";

    private final String modelId;
    private final double minProbability;
    private final double bias;
    private final double[] weights;

    /**
     * @param modelId the embedding model the weights were fitted for
     * @param minProbability the classifier probability a hit needs, in [0, 1]
     * @param bias the intercept
     * @param weights one per {@link PairFeatures#NAMES}, in that order
     */
    public LearnedParameters(String modelId, double minProbability, double bias, double[] weights) {
        List<String> errors = new ArrayList<>();
        if (modelId == null || modelId.isBlank()) {
            errors.add("model: missing");
        }
        if (!(minProbability >= 0 && minProbability <= 1)) {
            errors.add("min_probability: must be in [0, 1], was " + minProbability);
        }
        if (!Double.isFinite(bias)) {
            errors.add("bias: must be finite, was " + bias);
        }
        if (weights == null || weights.length != PairFeatures.COUNT) {
            errors.add("weights: expected " + PairFeatures.COUNT + ", had " + (weights == null ? 0 : weights.length));
        } else {
            for (int i = 0; i < weights.length; i++) {
                if (!Double.isFinite(weights[i])) {
                    errors.add("weight." + PairFeatures.NAMES.get(i) + ": must be finite, was " + weights[i]);
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("invalid decision parameters: " + String.join("; ", errors));
        }
        this.modelId = modelId;
        this.minProbability = minProbability;
        this.bias = bias;
        this.weights = weights.clone();
    }

    /** The parameters shipped with the module ({@link #BUNDLED_RESOURCE}). */
    public static LearnedParameters bundled() {
        try (InputStream in = LearnedParameters.class.getResourceAsStream(BUNDLED_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(BUNDLED_RESOURCE + " is missing from the classpath");
            }
            return read(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a parameters file; every error (missing, unknown or non-numeric key) is named in one exception. */
    public static LearnedParameters read(Reader reader) throws IOException {
        Properties p = new Properties();
        p.load(reader);
        List<String> errors = new ArrayList<>();
        for (String key : p.stringPropertyNames()) {
            boolean known = key.equals("model") || key.equals("min_probability") || key.equals("bias")
                    || (key.startsWith("weight.") && PairFeatures.NAMES.contains(key.substring("weight.".length())));
            if (!known) {
                errors.add(key + ": unknown key");
            }
        }
        double minProbability = number(p, "min_probability", errors);
        double bias = number(p, "bias", errors);
        double[] weights = new double[PairFeatures.COUNT];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = number(p, "weight." + PairFeatures.NAMES.get(i), errors);
        }
        String model = p.getProperty("model");
        if (model == null) {
            errors.add("model: missing");
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("invalid decision parameters: " + String.join("; ", errors));
        }
        return new LearnedParameters(model.trim(), minProbability, bias, weights);
    }

    private static double number(Properties p, String key, List<String> errors) {
        String value = p.getProperty(key);
        if (value == null) {
            errors.add(key + ": missing");
            return 0;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            errors.add(key + ": not a number: '" + value + "'");
            return 0;
        }
    }

    /** Writes the parameters in the format {@link #read} parses, after the given comment lines. */
    public void write(Writer out, List<String> comments) throws IOException {
        for (String comment : comments) {
            out.write("# " + comment + "\n");
        }
        out.write("model=" + modelId + "\n");
        out.write("min_probability=" + format(minProbability) + "\n");
        out.write("bias=" + format(bias) + "\n");
        for (int i = 0; i < weights.length; i++) {
            out.write("weight." + PairFeatures.NAMES.get(i) + "=" + format(weights[i]) + "\n");
        }
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.6f", value);
    }

    /** The same weights with another minimum probability. */
    public LearnedParameters withMinProbability(double value) {
        return new LearnedParameters(modelId, value, bias, weights);
    }

    /** The probability that the pair is the same request: the logistic of bias plus weights times features. */
    public double probability(double[] features) {
        double z = bias;
        for (int i = 0; i < weights.length; i++) {
            z += weights[i] * features[i];
        }
        return 1.0 / (1.0 + Math.exp(-z));
    }

    public String modelId() {
        return modelId;
    }

    public double minProbability() {
        return minProbability;
    }

    public double bias() {
        return bias;
    }

    /** A copy of the weights, in {@link PairFeatures#NAMES} order. */
    public double[] weights() {
        return weights.clone();
    }

    @Override
    public String toString() {
        return "LearnedParameters[model=" + modelId + ", min_probability=" + minProbability + ", bias=" + bias
                + ", weights=" + Arrays.toString(weights) + "]";
    }
}
