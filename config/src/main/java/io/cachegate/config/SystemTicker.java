package io.cachegate.config;

/** {@link Ticker#system()}: the JVM's monotonic clock and its wall clock. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long nanos() {
        return System.nanoTime();
    }

    @Override
    public long wallMillis() {
        return System.currentTimeMillis();
    }
}
