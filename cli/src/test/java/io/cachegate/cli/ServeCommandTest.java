package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
