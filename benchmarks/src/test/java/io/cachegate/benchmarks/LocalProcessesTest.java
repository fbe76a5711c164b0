package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalProcessesTest {

    @AfterEach
    void clear() {
        System.clearProperty(LocalProcesses.PORTS_PROPERTY);
    }

    @Test
    void freePorts_inARange_staysInItSkipsTakenPortsAndTakesTurns() throws Exception {
        try (ServerSocket probe = new ServerSocket(0)) {
            // A range of 8 above a port the system just gave (likely free), its first port taken by us.
            int low = probe.getLocalPort();
            System.setProperty(LocalProcesses.PORTS_PROPERTY, low + "-" + (low + 7));

            int first = LocalProcesses.freePorts(3);
            int second = LocalProcesses.freePorts(3);

            assertThat(first).isBetween(low + 1, low + 5); // low is held by the probe
            assertThat(second).isBetween(low + 1, low + 5).isNotEqualTo(first);
        }
    }

    @Test
    void freePorts_rangeTooSmall_saysSo() {
        System.setProperty(LocalProcesses.PORTS_PROPERTY, "19300-19301");

        assertThatThrownBy(() -> LocalProcesses.freePorts(3)).hasMessageContaining("19300-19301");
    }
}
