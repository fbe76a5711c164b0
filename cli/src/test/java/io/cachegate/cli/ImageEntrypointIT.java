package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's command line without an image: deploy/docker/entrypoint.sh run as the Dockerfile's
 * ENTRYPOINT runs it, with the Dockerfile's jar, policy and native-library paths moved under a temporary
 * directory, three times with the semantic cache on. Afterwards the JVMs' {@code java.io.tmpdir} holds
 * nothing (ONNX Runtime used to leave an {@code onnxruntime-java*} directory per start there). The second start
 * reads the error budget's evidence that the first one's SIGTERM wrote beside its index.
 */
class ImageEntrypointIT {

    private static final Pattern SERVING = Pattern.compile("cachegate serving on http://[^:]+:(\\d+)/v1 \\(admin http://[^:]+:(\\d+)\\)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void entrypoint_threeStarts_servePolicyOrDefaultAndLeaveNothingInTmp(@TempDir Path dir) throws Exception {
        ImageRecipe image = ImageRecipe.read();
        Path jar = image.root.resolve("cli/target/cachegate.jar");
        assertThat(jar).as("the runnable jar (mvn package builds it before this test)").isRegularFile();
        assertThat(image.copies).as("the image's jar is the one `mvn package -pl cli -am` builds")
                .containsEntry("/src/cli/target/cachegate.jar", image.env("CACHEGATE_JAR"));
        Path entrypoint = image.sourceOf(image.entrypoint.get(0));
        assertThat(entrypoint).isEqualTo(image.root.resolve("deploy/docker/entrypoint.sh")).isExecutable();
        assertThat(image.runs).as("native libraries extracted at build time into CACHEGATE_NATIVE_DIR")
                .anyMatch(run -> run.contains("-Dcachegate.native.dir=" + image.env("CACHEGATE_NATIVE_DIR")));

        // The Dockerfile's paths, moved under dir: /etc/cachegate/policy.yaml -> dir/etc/cachegate/policy.yaml.
        Path policy = under(dir, image.env("CACHEGATE_POLICY"));
        Path nativeDir = under(dir, image.env("CACHEGATE_NATIVE_DIR"));
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path work = Files.createDirectories(dir.resolve("work"));
        Files.createDirectories(policy.getParent());
        Files.writeString(policy, """
                server: { host: 127.0.0.1, port: 0, admin_host: 127.0.0.1, admin_port: 0, shutdown_grace: 1s }
                backends:
                  - { name: default, urls: ["http://127.0.0.1:9"], models: ["*"] }
                cache:
                  exact: { store: memory }
                  semantic: { enabled: true, store: embedded, path: ./index-from-policy, model: bundled }
                routes:
                  - { match: { model: "*" }, backend: default, cache: { exact: true, semantic: true } }
                """);
        Map<String, String> env = Map.of(
                "CACHEGATE_JAR", jar.toString(),
                "CACHEGATE_POLICY", policy.toString(),
                "CACHEGATE_NATIVE_DIR", nativeDir.toString(),
                "CACHEGATE_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);

        Started first = start(entrypoint, env, work, dir.resolve("run1"));
        assertThat(first.port).as("the policy's port 0, not the default's 8080").isNotEqualTo(8080);
        assertThat(first.log()).contains("serve --config " + policy);
        assertThat(work.resolve("index-from-policy")).isDirectory();
        Object extracted = extractedLibrary(nativeDir);
        assertThat(first.log()).contains("error budget: no evidence for this model");
        first.stop();
        assertThat(work.resolve("index-from-policy/error-budget-evidence"))
                .as("the error budget's evidence, written at the SIGTERM's close beside the index").isRegularFile();

        Started second = start(entrypoint, env, work, dir.resolve("run2"));
        assertThat(second.log()).as("read back at the restart")
                .contains("error budget: verdicts of 0 entries and 0 answer groups read from");
        second.stop();

        // Without the policy file: the embedded default, on its fixed ports.
        Files.delete(policy);
        Policy defaults = PolicyLoader.withEnvironment(name -> null).embeddedDefault();
        assertThat(image.exposed).containsExactly(defaults.server().port(), defaults.server().adminPort());
        assertThat(image.env("CACHEGATE_ADMIN_PORT")).isEqualTo(Integer.toString(defaults.server().adminPort()));
        assertPortsFree(defaults.server().port(), defaults.server().adminPort());
        Started third = start(entrypoint, env, work, dir.resolve("run3"));
        assertThat(third.log()).contains("serving the embedded default policy");
        assertThat(third.port).isEqualTo(defaults.server().port());
        assertThat(third.adminPort).isEqualTo(defaults.server().adminPort());
        // The HEALTHCHECK's command, as the image runs it (its port from the Dockerfile's ENV).
        Path healthcheck = image.sourceOf(image.healthcheck.get(0));
        assertThat(run(List.of(healthcheck.toString()), Map.of("CACHEGATE_ADMIN_PORT", image.env("CACHEGATE_ADMIN_PORT"))))
                .as("healthcheck exit code while serving").isZero();
        third.stop();
        assertThat(run(List.of(healthcheck.toString()), Map.of("CACHEGATE_ADMIN_PORT", image.env("CACHEGATE_ADMIN_PORT"))))
                .as("healthcheck exit code once stopped").isNotZero();

        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(Path::toString)).as("left in java.io.tmpdir after three starts").isEmpty();
        }
        assertThat(extracted).as("ONNX Runtime's library extracted into the native directory").isNotNull();
        assertThat(extractedLibrary(nativeDir)).as("ONNX Runtime's library extracted once and reused")
                .isEqualTo(extracted);
        assertThat(nativeDir.resolve("djl")).as("DJL's tokenizer library under the native directory").isDirectory();
    }

    private Started start(Path entrypoint, Map<String, String> env, Path work, Path logs) throws Exception {
        Files.createDirectories(logs);
        ProcessBuilder builder = new ProcessBuilder(entrypoint.toString()).directory(work.toFile())
                .redirectOutput(logs.resolve("out").toFile()).redirectError(logs.resolve("err").toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        Started started = new Started(process, logs);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Matcher serving;
        while (!(serving = SERVING.matcher(Files.readString(logs.resolve("out")))).find()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new AssertionError("the gateway did not start; its output:\n" + started.log());
            }
            Thread.sleep(100);
        }
        started.port = Integer.parseInt(serving.group(1));
        started.adminPort = Integer.parseInt(serving.group(2));
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + started.adminPort + "/health")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + started.adminPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).as("the semantic cache (and so ONNX Runtime) is running")
                .contains("cachegate_semantic_embed_queued");
        return started;
    }

    /** The identity (inode) of ONNX Runtime's library under the native directory, null when absent. */
    private static Object extractedLibrary(Path nativeDir) throws IOException {
        if (!Files.isDirectory(nativeDir)) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(nativeDir)) {
            Path library = dirs.filter(p -> p.getFileName().toString().startsWith("onnxruntime-")).findFirst()
                    .map(d -> d.resolve(System.mapLibraryName("onnxruntime"))).orElse(null);
            return library == null || !Files.isRegularFile(library) ? null
                    : Files.readAttributes(library, BasicFileAttributes.class).fileKey();
        }
    }

    private static int run(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(env);
        Process process = builder.start();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return process.exitValue();
    }

    private static Path under(Path dir, String absolute) {
        assertThat(absolute).startsWith("/");
        return dir.resolve(absolute.substring(1));
    }

    private static void assertPortsFree(int... ports) {
        List<Integer> busy = new ArrayList<>();
        for (int port : ports) {
            try (ServerSocket socket = new ServerSocket(port)) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                busy.add(port);
            }
        }
        assertThat(busy).as("ports the embedded default policy listens on are in use by another process").isEmpty();
    }

    private static final class Started {
        final Process process;
        final Path logs;
        int port;
        int adminPort;

        Started(Process process, Path logs) {
            this.process = process;
            this.logs = logs;
        }

        String log() throws IOException {
            return Files.readString(logs.resolve("out")) + Files.readString(logs.resolve("err"));
        }

        /** SIGTERM, as `docker stop` sends, then wait for the drain and the JVM's exit. */
        void stop() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the gateway did not stop within 30s of SIGTERM");
            }
            // 0: the drain ran on the signal and ended before the JVM's exit (143: it ran as a shutdown hook,
            // beside ONNX Runtime's, which frees the environment the embedder still uses; see Signals).
            assertThat(process.exitValue()).as("exit status after SIGTERM; its output:%n%s", log()).isZero();
        }
    }
}
