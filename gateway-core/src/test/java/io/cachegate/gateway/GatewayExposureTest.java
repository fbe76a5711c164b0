package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.Policy;
import io.cachegate.config.ServerSettings;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An admin listener open to the network needs a token: without one the gateway does not start. */
class GatewayExposureTest {

    private static final List<URI> BACKEND = List.of(URI.create("http://127.0.0.1:9"));

    @Test
    void start_nonLoopbackAdminWithoutToken_isRefusedBeforeBinding() {
        // The loader refuses such a file (PolicyValidationTest); a policy built in code meets the same check here.
        assertThatThrownBy(() -> Gateway.start(withAdmin("0.0.0.0", Optional.empty())))
                .isInstanceOf(StartRefusedException.class)
                .hasMessageStartingWith("server.admin_host 0.0.0.0 is not a loopback address and server.admin_token"
                        + " is not set");
    }

    @Test
    void start_nonLoopbackAdminWithEmptyToken_isRefused() {
        assertThatThrownBy(() -> Gateway.start(withAdmin("0.0.0.0", Optional.of(""))))
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

    /** A loopback test policy with its admin listener moved to {@code host}, as code (not the loader) would. */
    private static Policy withAdmin(String host, Optional<String> token) {
        Policy p = TestPolicies.parse(TestPolicies.yaml(BACKEND, "2s", "", ""));
        ServerSettings s = p.server();
        ServerSettings exposed = new ServerSettings(s.host(), s.port(), host, s.adminPort(), s.maxBodyBytes(),
                s.maxHeaderBytes(), token, s.shutdownGrace(), s.ioThreads(), s.json(), s.passthrough(),
                s.connections(), s.tls(), s.adminTls());
        return new Policy(p.source(), exposed, p.backends(), p.tenants(), p.classes(), p.cache(), p.routes(),
                p.admission(), p.telemetry(), p.log(), p.prices());
    }
}
