package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HangupSignalTest {

    @Test
    void onHangup_sigHupToThisProcess_runsTheAction() throws Exception {
        CountDownLatch reloaded = new CountDownLatch(1);

        boolean installed = HangupSignal.onHangup(reloaded::countDown);

        // Only signal once the handler is in: SIGHUP's default action would end the test JVM.
        assertThat(installed).as("sun.misc.Signal is available on the JDK the build runs").isTrue();
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(reloaded.await(10, TimeUnit.SECONDS)).as("the action ran on SIGHUP").isTrue();
    }
}
