package io.cachegate.gateway;

/** Closes what a test class started, in order, skipping what never got started. */
final class Closing {

    private Closing() {
    }

    static void all(AutoCloseable... resources) throws Exception {
        for (AutoCloseable resource : resources) {
            if (resource != null) {
                resource.close();
            }
        }
    }
}
