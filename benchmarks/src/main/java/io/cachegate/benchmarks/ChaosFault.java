package io.cachegate.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The faults {@code bench chaos} scripts, one per measured phase, each done to a {@link StressFleet} while the
 * phase's load runs: its name on the command line, what it does, and how the fleet is put back afterwards.
 */
enum ChaosFault {

    NONE("none", "baseline: nothing fails"),
    REDIS_STALL("redis-stall", "Redis stalls 0.5 s (DEBUG SLEEP) every 1.5 s"),
    REDIS_RESTART("redis-restart", "Redis SIGKILLed 0.3 s in, restarted empty 2 s later"),
    BACKEND_SLOW("backend-slow", "the backend 3x slower to first token, 4x per token"),
    BACKEND_ERRORS("backend-errors", "the backend fails 20% of calls with a 500"),
    BACKEND_HANG("backend-hang", "the backend hangs 5% of calls (the gateways' first_byte timeout: 3s)"),
    CPU_STARVED("cpu-starved", "busy processes starve the cores (--busy-processes)"),
    GATEWAY_KILL("gateway-kill", "gateway 1 SIGKILLed 0.5 s in (clients move to the others), restarted after");

    final String option;
    final String description;

    ChaosFault(String option, String description) {
        this.option = option;
        this.description = description;
    }

    static ChaosFault parse(String option) {
        for (ChaosFault f : values()) {
            if (f.option.equals(option.strip().toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + option + "'; one of " + names());
    }

    static String names() {
        return Arrays.stream(values()).map(f -> f.option).collect(Collectors.joining(","));
    }

    /** Changes the fleet before the phase's load starts (the backend's options are per process). */
    void before(StressFleet fleet, BenchChaosCommand run) throws Exception {
        switch (this) {
            case BACKEND_SLOW -> fleet.restartSimulator(
                    run.simulatorArgs(3 * run.simulator.ttftMs(), 4 * run.simulator.tpotMs(), ""));
            case BACKEND_ERRORS -> fleet.restartSimulator(
                    run.simulatorArgs(run.simulator.ttftMs(), run.simulator.tpotMs(), "--error-rate=0.2"));
            case BACKEND_HANG -> fleet.restartSimulator(
                    run.simulatorArgs(run.simulator.ttftMs(), run.simulator.tpotMs(), "--hang-rate=0.05"));
            default -> { }
        }
        fleet.awaitServing(Duration.ofSeconds(60));
    }

    /**
     * Runs while the load does, on a thread of its own, until {@code loadDone} says the load has ended (or it is
     * interrupted); {@code busy} processes for {@link #CPU_STARVED}.
     */
    void during(StressFleet fleet, int busy, BooleanSupplier loadDone) throws Exception {
        switch (this) {
            case REDIS_STALL -> {
                while (!loadDone.getAsBoolean()) {
                    fleet.redis().stall(Duration.ofMillis(500)).join();
                    Thread.sleep(1000);
                }
            }
            case REDIS_RESTART -> {
                Thread.sleep(300);
                fleet.redis().kill();
                Thread.sleep(2000);
                fleet.redis().restart();
            }
            case CPU_STARVED -> {
                try (CpuHogs hogs = CpuHogs.start(busy)) {
                    while (!loadDone.getAsBoolean() && hogs.count() > 0) {
                        Thread.sleep(50);
                    }
                }
            }
            case GATEWAY_KILL -> {
                Thread.sleep(500);
                fleet.killGateway(0);
            }
            default -> { }
        }
    }

    /** Puts the fleet back as it was before the phase. */
    void after(StressFleet fleet, BenchChaosCommand run) throws Exception {
        switch (this) {
            case BACKEND_SLOW, BACKEND_ERRORS, BACKEND_HANG ->
                    fleet.restartSimulator(run.simulatorArgs(run.simulator.ttftMs(), run.simulator.tpotMs(), ""));
            default -> { }
        }
        fleet.heal();
        fleet.awaitServing(Duration.ofSeconds(60));
    }
}
