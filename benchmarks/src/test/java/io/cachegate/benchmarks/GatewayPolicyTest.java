package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.LogSink;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policies the scenarios write load as the gateway would load them. */
class GatewayPolicyTest {

    private static final ChildSimulator TWO_REPLICAS = new ChildSimulator(null, 18000, 2);

    @TempDir
    Path dir;

    @Test
    void yaml_withoutRoutes_isOneCatchAllRouteToTheSimulator() throws Exception {
        GatewayPolicy policy = GatewayPolicy.of(0, TWO_REPLICAS);
        assertThat(policy.yaml(18080, 18081)).startsWith("""
                server: { host: 127.0.0.1, port: 18080, admin_port: 18081, io_threads: 0, shutdown_grace: 1s }
                backends:
                  - name: sim
                    urls: ["http://127.0.0.1:18000", "http://127.0.0.1:18001"]
                    max_connections_per_url: 256
                log: { access: off }
                routes:
                  - match: { model: "*" }
                    backend: sim
                """);
        Policy loaded = load(policy);
        assertThat(loaded.backends().get(0).urls())
                .containsExactly(URI.create("http://127.0.0.1:18000"), URI.create("http://127.0.0.1:18001"));
        assertThat(loaded.backends().get(0).modelVersion()).isEmpty();
        assertThat(loaded.routes()).hasSize(1);
        assertThat(loaded.log().access()).as("benchmarks measure the gateway's own path").isEqualTo(LogSink.OFF);
    }

    @Test
    void telemetryVariants_replaceTheLogSection_andAddTheirs() throws Exception {
        GatewayPolicy plain = GatewayPolicy.of(0, TWO_REPLICAS);
        Policy logged = load(plain.log("log: { access: file, file: \"" + dir.resolve("a.log") + "\" }"));
        Policy traced = load(plain.with("telemetry: { sampling: 0.1, otlp: { endpoint: \"http://127.0.0.1:4318\" } }"));
        assertThat(logged.log().access()).isEqualTo(LogSink.FILE);
        assertThat(traced.telemetry().tracing()).isTrue();
        assertThat(traced.log().access()).isEqualTo(LogSink.OFF);
        assertThat(load(plain).telemetry().tracing()).as("the original is unchanged").isFalse();
    }

    @Test
    void yaml_withSectionsAndRoutes_loads() throws Exception {
        GatewayPolicy policy = GatewayPolicy.of(2, TWO_REPLICAS).server("max_connections_per_address: 100000")
                .pinModelVersion().connectionsPerUrl(1024)
                .backend("max_concurrency: 8", "balance: least_loaded")
                .section("""
                        classes:
                          interactive: { priority: 0, max_queue_time: 2s }
                          batch: { priority: 2, max_queue_time: 10s }
                        """)
                .route("batch-model", "class: batch", "cache: { exact: false }")
                .route("*", "class: interactive", "cache: { exact: false }");
        Policy loaded = load(policy);
        assertThat(loaded.server().connections().maxConnectionsPerAddress()).isEqualTo(100_000);
        assertThat(loaded.backends().get(0).modelVersion()).isEqualTo(Optional.of("bench@1"));
        assertThat(loaded.backends().get(0).maxConnectionsPerUrl()).isEqualTo(1024);
        assertThat(loaded.backends().get(0).maxConcurrency()).hasValue(8);
        assertThat(loaded.classes()).containsKeys("interactive", "batch");
        assertThat(loaded.routes()).hasSize(2);
        assertThat(loaded.routes().get(0).trafficClass()).isEqualTo("batch");
    }

    private Policy load(GatewayPolicy policy) throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), policy.yaml(18080, 18081));
        return PolicyLoader.withEnvironment(Map.<String, String>of()::get).load(file);
    }
}
