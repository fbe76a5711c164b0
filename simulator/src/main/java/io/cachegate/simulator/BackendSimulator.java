package io.cachegate.simulator;

import java.net.URI;
import java.util.Objects;

/**
 * A running OpenAI-compatible backend simulator (vLLM's wire format). Start it with
 * {@link #start(SimulatorOptions)}, point a client at {@link #baseUrl()}, close it when done.
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

    /** Binds and returns once the simulator is listening. */
    public static BackendSimulator start(SimulatorOptions options) {
        Simulation sim = new Simulation(Objects.requireNonNull(options, "options"));
        return new BackendSimulator(sim, SimulatorServer.bind(sim));
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

    /** Stops listening, closes every connection and waits for the event loops to terminate. */
    @Override
    public void close() {
        server.close();
    }
}
