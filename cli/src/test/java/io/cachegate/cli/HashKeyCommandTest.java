package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cli.CliTest.Run;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HashKeyCommandTest {

    /** SHA-256 of "abc" (FIPS 180-2's test vector). */
    private static final String ABC = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    @TempDir
    Path dir;

    @Test
    void hashKey_argument_printsTheSha256Form() {
        Run run = CliTest.run("hash-key", "abc");

        assertThat(run.exit()).isZero();
        assertThat(run.out().strip()).isEqualTo(ABC);
    }

    @Test
    void hashKey_stdin_readsTheFirstLineWithoutItsLineEnd() {
        Run run = withStdin("abc\r\n", () -> CliTest.run("hash-key"));

        assertThat(run.exit()).isZero();
        assertThat(run.out().strip()).isEqualTo(ABC);
    }

    @Test
    void hashKey_nothingOnStdin_isAnError() {
        Run run = withStdin("", () -> CliTest.run("hash-key"));

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void validate_plainKey_warnsWithoutQuotingIt_andPrintsOk() throws Exception {
        Path file = dir.resolve("keys.yaml");
        Files.writeString(file, """
                backends:
                  - name: main
                    urls: [http://127.0.0.1:8000]
                tenants:
                  - id: acme
                    api_keys: ["%s", sk-plain-secret]
                """.formatted(ABC));

        Run run = CliTest.run("validate", file.toString());

        assertThat(run.exit()).isZero();
        assertThat(run.out()).isEqualTo("warning: " + file + ": tenants[0].api_keys[1]: a plain API key; write its"
                + " sha256: form instead (cachegate hash-key prints it)" + System.lineSeparator() + "ok"
                + System.lineSeparator());
    }

    private static Run withStdin(String text, java.util.function.Supplier<Run> body) {
        InputStream original = System.in;
        System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        try {
            return body.get();
        } finally {
            System.setIn(original);
        }
    }
}
