package io.cachegate.cache.semantic;

/**
 * Embedding vectors' arithmetic and checks: their cosine, and the checks on vectors handed to an index (the right
 * dimension and unit length: the indexes score by dot product).
 */
public final class Vectors {

    // int8 ONNX models normalise in float32: allow a little drift, but not an unnormalised vector.
    private static final double NORM_TOLERANCE = 1e-3;

    private Vectors() {
    }

    /** The cosine of two vectors of one dimension; 0 when either is all zeros. */
    public static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    static void check(float[] vector, int dimension) {
        if (vector.length != dimension) {
            throw new IllegalArgumentException("vector has dimension " + vector.length + ", the index expects " + dimension);
        }
        double sum = 0;
        for (float v : vector) {
            if (!Float.isFinite(v)) {
                throw new IllegalArgumentException("vector has a non-finite component");
            }
            sum += (double) v * v;
        }
        if (Math.abs(Math.sqrt(sum) - 1) > NORM_TOLERANCE) {
            throw new IllegalArgumentException("vector must be L2-normalised, its norm is " + Math.sqrt(sum));
        }
    }
}
