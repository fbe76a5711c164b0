package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The npm clients of {@code clients/node} (the {@code openai} package, installed by {@code npm ci} as .ci/run
 * does): each script prints one JSON line, which the test reads.
 */
final class NodeClients {

    static final Path DIR = Path.of("..", "clients", "node").toAbsolutePath().normalize();

    private NodeClients() {
    }

    /** Whether node and the installed package are here; the test classes are disabled where not. */
    static boolean installed() {
        return nodeOnPath() && Files.isDirectory(DIR.resolve("node_modules/openai"));
    }

    /** Runs {@code script} and parses the JSON line it prints; its stderr is shown on failure. */
    static JsonNode run(String script, String... args) throws Exception {
        Path errors = Files.createTempFile("node-client", ".err");
        Path output = Files.createTempFile("node-client", ".out");
        ProcessBuilder builder = new ProcessBuilder("node", script).directory(DIR.toFile())
                .redirectOutput(output.toFile()).redirectError(errors.toFile());
        builder.command().addAll(List.of(args));
        Process process = builder.start();
        boolean exited = process.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        String err = Files.readString(errors, StandardCharsets.UTF_8);
        assertThat(exited).as("node finished within 60s; stderr: %s", err).isTrue();
        assertThat(process.exitValue()).as("node exit status; stderr: %s", err).isZero();
        return json(Files.readString(output, StandardCharsets.UTF_8));
    }

    private static boolean nodeOnPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "node"))) {
                return true;
            }
        }
        return false;
    }
}
