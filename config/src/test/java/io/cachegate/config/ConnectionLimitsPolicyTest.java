package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.parse;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code server.*_timeout} and {@code server.max_connections*}: the proxy listener's read timeouts and caps. */
class ConnectionLimitsPolicyTest {

    @Test
    void parse_absent_defaults() throws Exception {
        ServerSettings.Connections c = parse(BACKEND).server().connections();
        assertThat(c).isEqualTo(new ServerSettings.Connections(Duration.ofSeconds(10), Duration.ofSeconds(60),
                Duration.ofSeconds(60), 10_000, 1000));
        assertThat(ServerSettings.defaults().connections()).isEqualTo(c);
    }

    @Test
    void parse_set_read() throws Exception {
        ServerSettings.Connections c = parse(BACKEND + """
                server:
                  header_timeout: 500ms
                  body_timeout: 2s
                  idle_timeout: 1m
                  max_connections: 3
                  max_connections_per_address: 2
                """).server().connections();
        assertThat(c).isEqualTo(new ServerSettings.Connections(Duration.ofMillis(500), Duration.ofSeconds(2),
                Duration.ofMinutes(1), 3, 2));
    }

    @Test
    void parse_zeroTimeoutOrCap_isAProblem() {
        assertThat(problem(BACKEND + "server:\n  header_timeout: 0s\n")).contains("server.header_timeout");
        assertThat(problem(BACKEND + "server:\n  max_connections: 0\n")).contains("server.max_connections");
        assertThat(problem(BACKEND + "server:\n  max_connections_per_address: 0\n"))
                .contains("server.max_connections_per_address");
    }

    @Test
    void parse_bufferedBodyBudgets_sizesOrAuto() throws Exception {
        ServerSettings.Connections c = parse(BACKEND + """
                server:
                  max_buffered_body_bytes: 64MiB
                  max_buffered_body_bytes_per_tenant: auto
                """).server().connections();
        assertThat(c.maxBufferedBodyBytes()).hasValue(64L << 20);
        assertThat(c.maxBufferedBodyBytesPerTenant()).isEmpty();
        assertThat(ServerSettings.defaults().connections().maxBufferedBodyBytes()).isEmpty();
        assertThat(problem(BACKEND + "server:\n  max_buffered_body_bytes: 0\n"))
                .contains("server.max_buffered_body_bytes");
        assertThat(problem(BACKEND + "server:\n  max_buffered_body_bytes_per_tenant: lots\n"))
                .contains("server.max_buffered_body_bytes_per_tenant");
    }
}
