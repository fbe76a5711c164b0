package io.cachegate.admission;

import java.time.Duration;

/** A clock moved by hand; starts far from zero so that code relying on absolute values would show. */
final class FakeTicker implements Ticker {

    private long nanos = 1_234_567_890_123L;

    @Override
    public long nanos() {
        return nanos;
    }

    void advance(Duration d) {
        nanos += d.toNanos();
    }

    void advanceMillis(long millis) {
        nanos += millis * 1_000_000L;
    }
}
