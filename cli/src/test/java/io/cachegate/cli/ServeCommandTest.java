package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeCommandTest {

    @TempDir
    Path dir;

    @Test
    void serve_adminOnTheNetworkWithoutToken_exitsWith2BeforeListening() throws Exception {
        Path file = dir.resolve("open-admin.yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, admin_host: 0.0.0.0, admin_port: 0, admin_token: "" }
                backends:
                  - name: main
                    urls: [http://127.0.0.1:9]
                cache: { semantic: { enabled: false } }
                """);

        Run run = CliTest.run("serve", "--config", file.toString());

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).doesNotContain("serving");
    }

    @Test
    void validate_adminOnTheNetworkWithoutToken_isRefusedAsServeRefusesIt() throws Exception {
        Path file = dir.resolve("open-admin.yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, admin_host: 0.0.0.0, admin_port: 0 }
                backends:
                  - name: main
                    urls: [http://127.0.0.1:9]
                cache: { semantic: { enabled: false } }
                """);
        String reason = "server.admin_host: 0.0.0.0 is not a loopback address and server.admin_token is not set";

        Run validate = CliTest.run("validate", file.toString());

        assertThat(validate.exit()).isEqualTo(1);
        assertThat(validate.out()).contains("open-admin.yaml:1: " + reason).doesNotContain("\nok");
    }

    @Test
    void serve_underNohupWithFewDescriptors_warnsOfBothAtStart() throws Exception {
        // The probe's start: SIGHUP ignored (nohup) and ulimit -n 512 under the default max_connections 10000.
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, admin_port: 0, shutdown_grace: 1s }
                backends:
                  - name: main
                    urls: [http://127.0.0.1:9]
                cache: { semantic: { enabled: false } }
                """);
        Path log = dir.resolve("serve.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process serve = new ProcessBuilder("/bin/sh", "-c", "trap '' HUP; ulimit -n 512; exec \"$@\"", "sh", java,
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                CachegateCli.class.getName(), "serve", "--config", file.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String out = "";
            for (int i = 0; i < 300 && serve.isAlive() && !out.contains("cachegate serving on"); i++) {
                Thread.sleep(50);
                out = Files.readString(log);
            }
            assertThat(out).contains("cachegate serving on")
                    .contains("the process was started with SIGHUP ignored")
                    .contains("the open-file limit (512) is below what server.max_connections (10000) needs");
        } finally {
            serve.destroy();
            serve.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
