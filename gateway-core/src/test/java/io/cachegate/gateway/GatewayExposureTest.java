package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An admin listener open to the network needs a token: without one the gateway does not start. */
class GatewayExposureTest {

    private static final List<URI> BACKEND = List.of(URI.create("http://127.0.0.1:9"));

    @Test
    void start_nonLoopbackAdminWithoutToken_isRefusedBeforeBinding() {
        assertThatThrownBy(() -> Gateway.start(TestPolicies.parse(TestPolicies.yaml(BACKEND, "2s",
                "  admin_host: 0.0.0.0\n", ""))))
                .isInstanceOf(StartRefusedException.class)
                .hasMessageStartingWith("server.admin_host 0.0.0.0 is not a loopback address and server.admin_token"
                        + " is not set");
    }

    @Test
    void start_nonLoopbackAdminWithEmptyToken_isRefused() {
        assertThatThrownBy(() -> Gateway.start(TestPolicies.parse(TestPolicies.yaml(BACKEND, "2s",
                "  admin_host: 0.0.0.0\n  admin_token: \"\"\n", ""))))
                .isInstanceOf(StartRefusedException.class);
    }

    @Test
    void start_nonLoopbackAdminWithToken_starts() throws Exception {
        try (Gateway gateway = Gateway.start(TestPolicies.parse(TestPolicies.yaml(BACKEND, "2s",
                "  admin_host: 0.0.0.0\n  admin_token: s3cret\n", "")))) {
            assertThat(gateway.adminPort()).isPositive();
        }
    }

    @Test
    void openProxyWarning_onlyForANonLoopbackProxyWithoutTenants() {
        String open = "server: {host: 0.0.0.0, port: 0, admin_port: 0}\nbackends: [{name: main, urls: [\"http://127.0.0.1:9\"]}]\n";
        String tenants = "tenants: [{id: acme, api_keys: [\"sha256:" + "ab".repeat(32) + "\"]}]\n";

        assertThat(Gateway.openProxyWarning(TestPolicies.parse(open))).get().asString()
                .contains("0.0.0.0 (not loopback)").contains("without an API key");
        assertThat(Gateway.openProxyWarning(TestPolicies.parse(open + tenants))).isEmpty();
        assertThat(Gateway.openProxyWarning(TestPolicies.parse(open.replace("0.0.0.0", "127.0.0.1")))).isEmpty();
    }

    @Test
    void isLoopback_namesOnlyThisMachine() {
        assertThat(Gateway.isLoopback("127.0.0.1")).isTrue();
        assertThat(Gateway.isLoopback("localhost")).isTrue();
        assertThat(Gateway.isLoopback("::1")).isTrue();
        assertThat(Gateway.isLoopback("[::1]")).isTrue();
        assertThat(Gateway.isLoopback("0.0.0.0")).isFalse();
        assertThat(Gateway.isLoopback("::")).isFalse();
        assertThat(Gateway.isLoopback("10.1.2.3")).isFalse();
    }
}
