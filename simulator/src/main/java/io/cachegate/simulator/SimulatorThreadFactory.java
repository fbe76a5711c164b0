package io.cachegate.simulator;

import io.netty.util.concurrent.DefaultThreadFactory;

/** Daemon event-loop threads named {@code simulator-N-M}, so a forgotten simulator never keeps a JVM alive. */
final class SimulatorThreadFactory extends DefaultThreadFactory {

    SimulatorThreadFactory() {
        super("simulator", true);
    }
}
