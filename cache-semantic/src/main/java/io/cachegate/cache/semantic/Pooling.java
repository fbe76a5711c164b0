package io.cachegate.cache.semantic;

import io.cachegate.config.SemanticCacheSettings;
import java.nio.FloatBuffer;

/**
 * Reduces a model's token vectors ({@code [batch, tokens, dimension]}, row-major) to one vector per text.
 * Reads the output buffer in place: copying it into Java arrays first would allocate a batch of
 * {@code 32 x 512 x 384} floats per call.
 */
final class Pooling {

    private Pooling() {
    }

    /**
     * @param hidden the last hidden state, {@code batch * tokens * dimension} floats
     * @param mask the attention mask, {@code batch * tokens} values, 1 for real tokens and 0 for padding
     */
    static float[][] pool(SemanticCacheSettings.Pooling mode, boolean normalize, FloatBuffer hidden, long[] mask,
                          int batch, int tokens, int dimension) {
        float[][] out = new float[batch][];
        for (int b = 0; b < batch; b++) {
            float[] vector = mode == SemanticCacheSettings.Pooling.CLS
                    ? cls(hidden, b, tokens, dimension)
                    : mean(hidden, mask, b, tokens, dimension);
            if (normalize) {
                normalize(vector);
            }
            out[b] = vector;
        }
        return out;
    }

    private static float[] cls(FloatBuffer hidden, int b, int tokens, int dimension) {
        float[] vector = new float[dimension];
        hidden.get(b * tokens * dimension, vector);
        return vector;
    }

    private static float[] mean(FloatBuffer hidden, long[] mask, int b, int tokens, int dimension) {
        // Accumulate in double: 512 tokens of float sums lose the last digits the 1e-5 batch/single
        // agreement depends on.
        double[] sum = new double[dimension];
        int count = 0;
        for (int t = 0; t < tokens; t++) {
            if (mask[b * tokens + t] == 0) {
                continue;
            }
            count++;
            int base = (b * tokens + t) * dimension;
            for (int d = 0; d < dimension; d++) {
                sum[d] += hidden.get(base + d);
            }
        }
        float[] vector = new float[dimension];
        if (count > 0) {
            for (int d = 0; d < dimension; d++) {
                vector[d] = (float) (sum[d] / count);
            }
        }
        return vector;
    }

    /** Scales to unit length; a zero vector stays zero rather than becoming NaN. */
    static void normalize(float[] vector) {
        double squares = 0;
        for (float v : vector) {
            squares += (double) v * v;
        }
        if (squares == 0) {
            return;
        }
        double scale = 1 / Math.sqrt(squares);
        for (int i = 0; i < vector.length; i++) {
            vector[i] = (float) (vector[i] * scale);
        }
    }
}
