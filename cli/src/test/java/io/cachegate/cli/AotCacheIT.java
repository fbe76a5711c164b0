package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK 25 AOT cache for real, on the newest java of this machine (skipped without a 25 or later): trained with the
 * flags bin/find-java gives {@code train-aot}, then loaded with those it gives a later command, under
 * {@code -XX:AOTMode=on}, which makes the JVM refuse to start rather than go on without a cache it cannot use; and the
 * same through the image's entrypoint, with its paths moved under a temporary directory.
 */
class AotCacheIT {

    @TempDir
    Path dir;

    @Test
    void launcherFlags_trainACache_thatALaterStartLoads() throws Exception {
        Path root = root();
        Path jar = root.resolve("cli/target/cachegate.jar");
        assertThat(jar).as("the runnable jar (mvn package builds it before this test)").isRegularFile();
        String java = run(List.of("/bin/bash", root.resolve("bin/find-java").toString()), Map.of()).out().strip();
        Path cache = dir.resolve("cachegate.aot");
        List<String> train = aotFlags(root, java, cache, jar, "train-aot");
        assumeTrue(!train.isEmpty(), java + " is older than Java 25: no AOT cache");

        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(train);
        command.addAll(List.of("-jar", jar.toString(), "train-aot", "--duration", "3s"));
        Run trained = run(command, Map.of());
        assertThat(trained.exit()).as("train-aot; stderr: %s", trained.err()).isZero();
        assertThat(trained.out()).containsPattern("train-aot: [1-9][0-9]* requests, 0 errors");
        assertThat(trained.err()).doesNotContain("[error][aot]");
        assertThat(cache).isRegularFile();
        assertThat(Files.size(cache)).as("classes and profiles").isGreaterThan(1 << 20);

        List<String> start = new ArrayList<>(List.of(java));
        start.addAll(aotFlags(root, java, cache, jar, "serve"));
        assertThat(start).contains("-XX:AOTCache=" + cache);
        start.addAll(List.of("-XX:AOTMode=on", "-jar", jar.toString(), "--version"));
        Run loaded = run(start, Map.of());
        assertThat(loaded.exit()).as("a start on the cache; stderr: %s", loaded.err()).isZero();
        assertThat(loaded.out()).startsWith("cachegate ");
        assertThat(loaded.err()).doesNotContain("[error][aot]");
    }

    @Test
    void imageEntrypoint_trainsTheCache_andAStartUsesIt() throws Exception {
        Path root = root();
        Path jar = root.resolve("cli/target/cachegate.jar");
        String java = run(List.of("/bin/bash", root.resolve("bin/find-java").toString()), Map.of()).out().strip();
        Path cache = dir.resolve("aot/cachegate.aot");
        assumeTrue(!aotFlags(root, java, cache, jar, "train-aot").isEmpty(), java + " is older than Java 25");
        Files.createDirectories(cache.getParent());
        Map<String, String> env = Map.of(
                "PATH", Path.of(java).getParent() + ":/usr/bin:/bin",
                "CACHEGATE_JAR", jar.toString(),
                "CACHEGATE_POLICY", dir.resolve("no-policy.yaml").toString(),
                "CACHEGATE_NATIVE_DIR", Files.createDirectories(dir.resolve("native")).toString(),
                "CACHEGATE_AOT_CACHE", cache.toString());
        Path entrypoint = root.resolve("deploy/docker/entrypoint.sh");

        Run trained = run(List.of(entrypoint.toString(), "train-aot", "--duration", "2s"), env);
        assertThat(trained.exit()).as("entrypoint.sh train-aot; stderr: %s", trained.err()).isZero();
        assertThat(trained.out()).contains("-XX:AOTCacheOutput=" + cache);
        assertThat(cache).isRegularFile();

        Map<String, String> strict = new java.util.HashMap<>(env);
        strict.put("CACHEGATE_JAVA_OPTS", "-XX:AOTMode=on");
        Run loaded = run(List.of(entrypoint.toString(), "--version"), strict);
        assertThat(loaded.exit()).as("a start on the cache; stderr: %s", loaded.err()).isZero();
        assertThat(loaded.err()).doesNotContain("[error][aot]");
    }

    private List<String> aotFlags(Path root, String java, Path cache, Path jar, String command) throws Exception {
        Run flags = run(List.of("/bin/bash", root.resolve("bin/find-java").toString(), "--aot-cache", java,
                cache.toString(), jar.toString(), command), Map.of());
        assertThat(flags.exit()).isZero();
        return flags.out().lines().toList();
    }

    private Run run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().remove("CACHEGATE_AOT");
        pb.environment().remove("CACHEGATE_JAVA_OPTS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not end in 180 s; stderr: " + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Run(int exit, String out, String err) {
    }

    /** This checkout's root: the directory above the working directory that holds bin/find-java. */
    private static Path root() {
        Path d = Path.of("").toAbsolutePath();
        while (d != null && !Files.isRegularFile(d.resolve("bin/find-java"))) {
            d = d.getParent();
        }
        assertThat(d).as("bin/find-java in a parent of the working directory").isNotNull();
        return d;
    }
}
