package io.cachegate.benchmarks;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The YAML policy of a gateway under test, written once for every scenario: a listener on 127.0.0.1, one
 * backend {@code sim} (the simulator's replicas), the scenario's own top-level sections (cache, classes,
 * admission) and its routes to {@code sim}, a catch-all one when it names none.
 */
final class GatewayPolicy {

    private final int ioThreads;
    private final List<URI> urls;
    private final List<String> backend = new ArrayList<>();
    private final List<String> server = new ArrayList<>();
    private int connectionsPerUrl = 256;
    private boolean pinned;
    private BenchCertificate tls;
    /** Off unless a scenario measures it: the gateway's own path is what benchmarks compare. */
    private String log = "log: { access: off }\n";
    private final StringBuilder sections = new StringBuilder();
    private final List<Map.Entry<String, List<String>>> routes = new ArrayList<>();

    private GatewayPolicy(int ioThreads, List<URI> urls) {
        this.ioThreads = ioThreads;
        this.urls = List.copyOf(urls);
    }

    /** A policy with {@code io_threads: ioThreads} (0 = the gateway's default) in front of {@code simulator}. */
    static GatewayPolicy of(int ioThreads, ChildSimulator simulator) {
        return new GatewayPolicy(ioThreads, simulator.uris());
    }

    /**
     * Pins the backend's {@code model_version} ({@code bench@1}): cache keys need not wait for the simulator's
     * {@code /v1/models}.
     */
    GatewayPolicy pinModelVersion() {
        pinned = true;
        return this;
    }

    /** This policy with its proxy listener on HTTPS with {@code certificate} ({@code server.tls}). */
    GatewayPolicy tls(BenchCertificate certificate) {
        GatewayPolicy copy = copy();
        copy.tls = certificate;
        return copy;
    }

    /** This policy with {@code yaml} as its {@code log:} section (the access log is off otherwise). */
    GatewayPolicy log(String yaml) {
        GatewayPolicy copy = copy();
        copy.log = yaml.endsWith("\n") ? yaml : yaml + "\n";
        return copy;
    }

    /** This policy with one more top-level section, e.g. a {@code telemetry:} block. */
    GatewayPolicy with(String yaml) {
        return copy().section(yaml);
    }

    private GatewayPolicy copy() {
        GatewayPolicy copy = new GatewayPolicy(ioThreads, urls);
        copy.backend.addAll(backend);
        copy.server.addAll(server);
        copy.connectionsPerUrl = connectionsPerUrl;
        copy.pinned = pinned;
        copy.tls = tls;
        copy.log = log;
        copy.sections.append(sections);
        copy.routes.addAll(routes);
        return copy;
    }

    /** Whether the proxy listener speaks HTTPS. */
    boolean tls() {
        return tls != null;
    }

    /** The backend's {@code max_connections_per_url} (256 unless set). */
    GatewayPolicy connectionsPerUrl(int connections) {
        connectionsPerUrl = connections;
        return this;
    }

    /** Other settings of the listener, one YAML {@code key: value} each, e.g. {@code max_connections: 100}. */
    GatewayPolicy server(String... settings) {
        server.addAll(List.of(settings));
        return this;
    }

    /** Other settings of the backend, one YAML {@code key: value} each, e.g. {@code max_concurrency: 8}. */
    GatewayPolicy backend(String... settings) {
        backend.addAll(List.of(settings));
        return this;
    }

    /** Top-level YAML written before the routes, e.g. a {@code cache:} block. */
    GatewayPolicy section(String yaml) {
        sections.append(yaml.endsWith("\n") ? yaml : yaml + "\n");
        return this;
    }

    /** A route from {@code model} ({@code *} for any) to the backend, with settings like {@code class: batch}. */
    GatewayPolicy route(String model, String... settings) {
        routes.add(Map.entry(model, List.of(settings)));
        return this;
    }

    /** The policy with the listener on {@code port} and the admin API on {@code adminPort}. */
    String yaml(int port, int adminPort) {
        StringBuilder out = new StringBuilder(512);
        out.append("server: { host: 127.0.0.1, port: ").append(port).append(", admin_port: ").append(adminPort)
                .append(", io_threads: ").append(ioThreads).append(", shutdown_grace: 1s");
        if (tls != null) {
            out.append(", tls: { certificate: \"").append(tls.certificate()).append("\", key: \"").append(tls.key())
                    .append("\" }");
        }
        server.forEach(setting -> out.append(", ").append(setting));
        out.append(" }\n");
        out.append("backends:\n  - name: sim\n    urls: [")
                .append(urls.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", "))).append("]\n");
        if (pinned) {
            out.append("    model_version: \"bench@1\"\n");
        }
        out.append("    max_connections_per_url: ").append(connectionsPerUrl).append('\n');
        backend.forEach(s -> out.append("    ").append(s).append('\n'));
        out.append(log).append(sections).append("routes:\n");
        for (Map.Entry<String, List<String>> r : routes.isEmpty() ? List.of(Map.entry("*", List.<String>of())) : routes) {
            out.append("  - match: { model: \"").append(r.getKey()).append("\" }\n    backend: sim\n");
            r.getValue().forEach(s -> out.append("    ").append(s).append('\n'));
        }
        return out.toString();
    }
}
