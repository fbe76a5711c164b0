package io.cachegate.gateway.telemetry.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotatingFileSinkTest {

    @TempDir
    Path dir;

    private static byte[] line(int n) {
        return String.format("{\"n\":%04d,\"pad\":\"%s\"}", n, "x".repeat(80)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void write_pastTheSize_rotates_andKeepsAtMostMaxFiles() throws Exception {
        Path file = dir.resolve("access.log");
        int lineBytes = line(0).length + 1;
        RotatingFileSink sink = new RotatingFileSink(file, 10L * lineBytes, 3); // ten lines a file

        for (int n = 0; n < 100; n++) {
            sink.write(line(n));
        }
        sink.close();

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("access.log", "access.log.1", "access.log.2", "access.log.3");
        }
        // 100 lines, 10 a file: the current holds 90-99, .1 80-89, .2 70-79, .3 60-69; older ones were deleted.
        assertThat(Files.readAllLines(file)).hasSize(10).first().asString().startsWith("{\"n\":0090");
        assertThat(Files.readAllLines(dir.resolve("access.log.1")).get(0)).startsWith("{\"n\":0080");
        assertThat(Files.readAllLines(dir.resolve("access.log.3")).get(0)).startsWith("{\"n\":0060");
        for (String name : List.of("access.log", "access.log.1", "access.log.2", "access.log.3")) {
            assertThat(Files.size(dir.resolve(name))).isLessThanOrEqualTo(10L * lineBytes);
        }
    }

    @Test
    void reopen_appendsToTheExistingFile_andCountsItsSize() throws Exception {
        Path file = dir.resolve("a.log");
        int lineBytes = line(0).length + 1;
        RotatingFileSink first = new RotatingFileSink(file, 3L * lineBytes, 2);
        first.write(line(1));
        first.write(line(2));
        first.close();

        RotatingFileSink again = new RotatingFileSink(file, 3L * lineBytes, 2);
        again.write(line(3));
        again.write(line(4)); // the fourth line rotates
        again.close();

        assertThat(Files.readAllLines(dir.resolve("a.log.1"))).hasSize(3);
        assertThat(Files.readAllLines(file)).hasSize(1);
    }
}
