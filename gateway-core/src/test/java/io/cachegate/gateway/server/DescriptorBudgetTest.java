package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import org.junit.jupiter.api.Test;

class DescriptorBudgetTest {

    /** max_connections 600; two URLs of 64 upstream connections each. */
    private static final Policy POLICY = Exchanges.policy("""
            server: { max_connections: 600 }
            backends:
              - { name: main, urls: ["http://127.0.0.1:9", "http://127.0.0.1:10"], max_connections_per_url: 64 }
            """);

    @Test
    void clientCap_limitBelowTheNeed_leavesRoomForUpstreamAndTheRest() {
        // The probe's ulimit -n 512: 512 - 2 x 64 upstream - 128 reserved = 256 clients, not 600.
        DescriptorBudget budget = DescriptorBudget.of(512);

        assertThat(budget.clientCap(POLICY)).isEqualTo(256);
        assertThat(budget.warning(POLICY)).get().asString()
                .startsWith("the open-file limit (512) is below what server.max_connections (600) needs with the"
                        + " upstream pools (128) and 128 for the rest: 856.")
                .contains("capped at 256").contains("ulimit -n 856");
    }

    @Test
    void clientCap_limitEnough_isMaxConnections_andNoWarning() {
        DescriptorBudget budget = DescriptorBudget.of(856);

        assertThat(budget.clientCap(POLICY)).isEqualTo(600);
        assertThat(budget.warning(POLICY)).isEmpty();
        assertThat(DescriptorBudget.UNLIMITED.clientCap(POLICY)).isEqualTo(600);
    }

    @Test
    void clientCap_limitBelowTheReserve_stillAdmitsOne() {
        assertThat(DescriptorBudget.of(100).clientCap(POLICY)).isEqualTo(1);
    }
}
