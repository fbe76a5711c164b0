package io.cachegate.simulator;

import io.netty.util.concurrent.Future;
import java.net.URI;
import java.util.Objects;

/**
 * A running OpenAI-compatible backend simulator (vLLM's wire format): one model-server replica.
 * Start it with {@link #start(SimulatorOptions)}, or several independent ones with
 * {@link #startReplicas(int, SimulatorOptions)}; point a client at {@link #baseUrl()}, close it when done.
 */
public final class BackendSimulator implements AutoCloseable {

    private final Simulation sim;
    private final SimulatorServer server;
    private final URI baseUrl;

    private BackendSimulator(Simulation sim, SimulatorServer server) {
        this.sim = sim;
        this.server = server;
        String host = sim.options.host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.isEmpty()) {
            host = "127.0.0.1"; // a wildcard bind is reached through loopback
        } else if (host.contains(":")) {
            host = "[" + host + "]";
        }
        this.baseUrl = URI.create("http://" + host + ":" + server.port());
    }

    /**
     * Binds and returns once the simulator is listening (with {@code --kv-events}, publishing too).
     *
     * @throws IllegalArgumentException when the KV-events tokenizer cannot be loaded or their ports bound
     */
    public static BackendSimulator start(SimulatorOptions options) {
        return start(options, null);
    }

    /** As {@link #start(SimulatorOptions)}, publishing KV events to {@code events} (kept open at close) if given. */
    static BackendSimulator start(SimulatorOptions options, KvEventPublisher events) {
        Simulation sim = new Simulation(Objects.requireNonNull(options, "options"), events);
        try {
            return new BackendSimulator(sim, SimulatorServer.bind(sim));
        } catch (RuntimeException e) {
            sim.close();
            throw e;
        }
    }

    /**
     * Starts {@code count} independent replicas (each its own queue, prefix cache, counters and
     * event loops) on ports {@code port … port + count − 1}, or on ephemeral ports when the port is 0.
     * Replica {@code i} seeds its faults with {@code seed + i}, so replicas do not fail in lockstep.
     */
    public static SimulatorReplicas startReplicas(int count, SimulatorOptions options) {
        return SimulatorReplicas.start(count, options);
    }

    public int port() {
        return server.port();
    }

    /** {@code http://host:port}, without a trailing slash or {@code /v1}. */
    public URI baseUrl() {
        return baseUrl;
    }

    public SimulatorOptions options() {
        return sim.options;
    }

    public SimulatorStats stats() {
        return sim.stats();
    }

    /**
     * Stops listening, closes every connection and waits for the event loops to terminate (at most
     * a few seconds). Closing again does nothing.
     */
    @Override
    public void close() {
        server.close();
        sim.close();
    }

    /**
     * Starts closing the server without waiting; the future completes when the event loops are gone. Then
     * {@link #closeSimulation()} frees the rest.
     */
    Future<?> closeAsync() {
        return server.closeAsync();
    }

    /** The block hashes the prefix cache holds now (a copy), for tests comparing a subscriber's view. */
    java.util.Set<Long> cachedBlocks() {
        return sim.prefixCache.blocks();
    }

    /** Frees the tokenizer and the KV-event publisher it owns, once the server is closed. Idempotent. */
    void closeSimulation() {
        sim.close();
    }
}
