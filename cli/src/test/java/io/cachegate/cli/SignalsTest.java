package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SignalsTest {

    @Test
    void onHangup_sigHupToThisProcess_runsTheAction() throws Exception {
        CountDownLatch reloaded = new CountDownLatch(1);

        Signals.Installation installed = Signals.onHangup(reloaded::countDown);

        // Only signal once the handler is in: SIGHUP's default action would end the test JVM.
        assertThat(installed).as("sun.misc.Signal is available on the JDK the build runs")
                .isEqualTo(Signals.Installation.INSTALLED);
        assertThat(installed.hangupWarning()).isEmpty();
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
        assertThat(Signals.Installation.IGNORED.hangupWarning()).get().asString()
                .contains("started with SIGHUP ignored").contains("POST /admin/reload");
    }

    @Test
    void onStop_sigTerm_drainsBeforeTheJvmsShutdownHooksBegin() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), StopProbe.class.getName())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();

        // Before, the drain was itself a shutdown hook: it ran beside every other one (ONNX Runtime's frees the
        // native environment the drain's embeddings still use), and the JVM exited 143.
        assertThat(out).isEqualTo("INSTALLED\ndrained\nhook");
        assertThat(child.exitValue()).isZero();
    }

    /** Installs the handler, signals itself and prints what the installation said and whether the action ran. */
    static final class Probe {

        public static void main(String[] args) throws Exception {
            CountDownLatch ran = new CountDownLatch(1);
            Signals.Installation installation = Signals.onHangup(ran::countDown);
            new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            System.out.println(installation + " ran=" + ran.await(1, TimeUnit.SECONDS));
        }
    }

    /** Installs a stop action slower than a shutdown hook, signals itself with SIGTERM, exits when it is done. */
    static final class StopProbe {

        public static void main(String[] args) throws Exception {
            CountDownLatch drained = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("hook")));
            Signals.Installation installation = Signals.onStop(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.out.println("drained");
                drained.countDown();
            });
            System.out.println(installation);
            new ProcessBuilder("kill", "-TERM", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            drained.await();
            System.exit(0);
        }
    }
}
