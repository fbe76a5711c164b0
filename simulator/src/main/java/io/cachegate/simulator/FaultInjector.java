package io.cachegate.simulator;

import java.util.SplittableRandom;

/** Decides, per inference request, whether to fail it (500) or hang it, from a seeded random so runs repeat. */
final class FaultInjector {

    enum Fault { NONE, ERROR, HANG }

    private final double errorRate;
    private final double hangRate;
    private final SplittableRandom random;

    FaultInjector(double errorRate, double hangRate, long seed) {
        this.errorRate = errorRate;
        this.hangRate = hangRate;
        this.random = new SplittableRandom(seed);
    }

    Fault next() {
        if (errorRate == 0 && hangRate == 0) {
            return Fault.NONE; // the common case takes no lock
        }
        double draw;
        synchronized (random) { // SplittableRandom is not thread-safe and event loops share it
            draw = random.nextDouble();
        }
        if (draw < errorRate) {
            return Fault.ERROR;
        }
        return draw < errorRate + hangRate ? Fault.HANG : Fault.NONE;
    }
}
