package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HangupSignalTest {

    @Test
    void onHangup_sigHupToThisProcess_runsTheAction() throws Exception {
        CountDownLatch reloaded = new CountDownLatch(1);

        HangupSignal.Installation installed = HangupSignal.onHangup(reloaded::countDown);

        // Only signal once the handler is in: SIGHUP's default action would end the test JVM.
        assertThat(installed).as("sun.misc.Signal is available on the JDK the build runs")
                .isEqualTo(HangupSignal.Installation.INSTALLED);
        assertThat(installed.warning()).isEmpty();
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(reloaded.await(10, TimeUnit.SECONDS)).as("the action ran on SIGHUP").isTrue();
    }

    @Test
    void onHangup_processStartedWithSigHupIgnored_saysSoRatherThanInstalled() throws Exception {
        // As under nohup: the shell ignores HUP, then becomes the JVM, which inherits the disposition.
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder("/bin/sh", "-c", "trap '' HUP; exec \"$@\"", "sh", java, "-Xshare:auto",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Probe.class.getName())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();

        // Before, onHangup answered "installed" here and the action never ran: a reload by SIGHUP silently lost.
        assertThat(out).isEqualTo("IGNORED ran=false");
        assertThat(HangupSignal.Installation.IGNORED.warning()).get().asString()
                .contains("started with SIGHUP ignored").contains("POST /admin/reload");
    }

    /** Installs the handler, signals itself and prints what the installation said and whether the action ran. */
    static final class Probe {

        public static void main(String[] args) throws Exception {
            CountDownLatch ran = new CountDownLatch(1);
            HangupSignal.Installation installation = HangupSignal.onHangup(ran::countDown);
            new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            System.out.println(installation + " ran=" + ran.await(1, TimeUnit.SECONDS));
        }
    }
}
