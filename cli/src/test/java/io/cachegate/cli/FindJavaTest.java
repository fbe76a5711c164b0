package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/find-java, the launcher's choice of java, run against a fake JVM directory: fake {@code bin/java} scripts
 * that print a version as a JDK does, found through {@code CACHEGATE_JVM_DIRS} instead of /usr/lib/jvm.
 */
class FindJavaTest {

    @TempDir
    Path tmp;

    private Path jvms;

    @BeforeEach
    void fakeJvms() throws IOException {
        jvms = Files.createDirectories(tmp.resolve("jvm"));
        fakeJava(jvms.resolve("java-17-openjdk/bin/java"), "openjdk version \"17.0.9\" 2023-10-17");
        fakeJava(jvms.resolve("temurin-21-jdk/bin/java"), "openjdk version \"21.0.1\" 2023-10-17 LTS");
        fakeJava(jvms.resolve("temurin-25-jdk/bin/java"), "openjdk version \"25\" 2025-09-16 LTS");
        fakeJava(jvms.resolve("jdk1.8.0/bin/java"), "java version \"1.8.0_392\"");
    }

    @Test
    void newestJava21OrLater_isChosen() throws Exception {
        assertThat(findJava(Map.of())).isEqualTo(jvms.resolve("temurin-25-jdk/bin/java").toString());
    }

    @Test
    void cachegateJava_winsOverANewerOne_whateverItsVersion() throws Exception {
        String java17 = jvms.resolve("java-17-openjdk/bin/java").toString();
        assertThat(findJava(Map.of("CACHEGATE_JAVA", java17))).isEqualTo(java17);
    }

    @Test
    void javaHomeAt17_isSkippedForThe25() throws Exception {
        assertThat(findJava(Map.of("JAVA_HOME", jvms.resolve("java-17-openjdk").toString())))
                .isEqualTo(jvms.resolve("temurin-25-jdk/bin/java").toString());
    }

    @Test
    void javaHomeAt21_winsOverTheNewer25() throws Exception {
        assertThat(findJava(Map.of("JAVA_HOME", jvms.resolve("temurin-21-jdk").toString())))
                .isEqualTo(jvms.resolve("temurin-21-jdk/bin/java").toString());
    }

    @Test
    void nothing21OrLater_fallsBackToThePathsJava() throws Exception {
        Path onlyOld = Files.createDirectories(tmp.resolve("old-jvm"));
        fakeJava(onlyOld.resolve("java-17-openjdk/bin/java"), "openjdk version \"17.0.9\" 2023-10-17");
        Path pathJava = tmp.resolve("path-bin/java");
        fakeJava(pathJava, "openjdk version \"11.0.2\" 2019-01-15");

        String chosen = findJava(Map.of("CACHEGATE_JVM_DIRS", onlyOld.toString(),
                "PATH", pathJava.getParent() + ":/usr/bin:/bin"));

        assertThat(chosen).isEqualTo(pathJava.toString());
    }

    @Test
    void aJdksReleaseFile_givesTheVersion_withoutStartingItsJava() throws Exception {
        // This java fails when run: only the release file beside it can say it is a 26.
        Path broken = jvms.resolve("jdk-26/bin/java");
        fakeJava(broken, null);
        Files.writeString(jvms.resolve("jdk-26/release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"26.0.1\"\n");

        assertThat(findJava(Map.of())).isEqualTo(broken.toString());
    }

    @Test
    void cachegateJava_notAnExecutable_isAUsageError() throws Exception {
        Run run = run(Map.of("CACHEGATE_JAVA", tmp.resolve("missing/java").toString()));
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("CACHEGATE_JAVA=", "is not an executable file");
    }

    @Test
    void debug_saysWhichJavaAndWhy_onStderrOnly() throws Exception {
        Map<String, String> env = Map.of("CACHEGATE_DEBUG", "1", "JAVA_HOME", jvms.resolve("java-17-openjdk").toString());
        Run run = run(env);
        assertThat(run.exit()).isZero();
        assertThat(run.out().strip()).isEqualTo(jvms.resolve("temurin-25-jdk/bin/java").toString());
        assertThat(run.err()).contains("skipped: Java 17", "the newest Java 21 or later found: 25");
        assertThat(run(Map.of()).err()).as("nothing extra without CACHEGATE_DEBUG").isEmpty();
    }

    @Test
    void vectorApi_java25WithTheModule_addsItAndNamesTheVersion() throws Exception {
        Path java = jdk("jdk-25", "25.0.1", "java.base jdk.incubator.vector jdk.jfr");

        assertThat(run(Map.of(), "--vector-api", java.toString()).out().lines()).containsExactly("--add-modules",
                "jdk.incubator.vector", "-Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=25");
    }

    @Test
    void vectorApi_java21_addsTheModuleOnly() throws Exception {
        Path java = jdk("jdk-21", "21.0.5", "java.base jdk.incubator.vector");

        assertThat(run(Map.of(), "--vector-api", java.toString()).out().lines())
                .containsExactly("--add-modules", "jdk.incubator.vector");
    }

    @Test
    void vectorApi_none_forJava17_anUntestedVersion_aJreWithoutTheModule_orWhenOff() throws Exception {
        Path java17 = jdk("jdk-17", "17.0.9", "java.base jdk.incubator.vector");
        Path java26 = jdk("jdk-26", "26", "java.base jdk.incubator.vector");
        Path slim = jdk("jre-25", "25.0.1", "java.base java.logging");
        Path java25 = jdk("jdk-25", "25.0.1", "java.base jdk.incubator.vector");

        for (Path java : new Path[] {java17, java26, slim}) {
            Run run = run(Map.of(), "--vector-api", java.toString());
            assertThat(run.exit()).isZero();
            assertThat(run.out()).as(java.toString()).isEmpty();
        }
        assertThat(run(Map.of("CACHEGATE_VECTOR_API", "off"), "--vector-api", java25.toString()).out()).isEmpty();
    }

    @Test
    void unsafeAccess_allowedFromJava23_noneBefore_orWhenOff() throws Exception {
        Path java25 = jdk("jdk-25", "25.0.1", "java.base");
        Path java23 = jdk("jdk-23", "23.0.2", "java.base");
        Path java21 = jdk("jdk-21", "21.0.5", "java.base");

        assertThat(run(Map.of(), "--unsafe-access", java25.toString()).out().lines())
                .containsExactly("--sun-misc-unsafe-memory-access=allow");
        assertThat(run(Map.of(), "--unsafe-access", java23.toString()).out().lines())
                .containsExactly("--sun-misc-unsafe-memory-access=allow");
        Run old = run(Map.of(), "--unsafe-access", java21.toString());
        assertThat(old.exit()).isZero();
        assertThat(old.out()).isEmpty();
        assertThat(run(Map.of("CACHEGATE_UNSAFE_ACCESS", "off"), "--unsafe-access", java25.toString()).out()).isEmpty();
    }

    @Test
    void aotCache_java25_trainsWithTheOutputFlag_andStartsFromACacheNewerThanTheJar() throws Exception {
        Path java = jdk("jdk-25", "25.0.1", "java.base");
        Path jar = Files.writeString(tmp.resolve("cachegate.jar"), "jar");
        Path cache = tmp.resolve("cachegate.aot");

        assertThat(run(Map.of(), "--aot-cache", java.toString(), cache.toString(), jar.toString(), "train-aot").out()
                .lines()).containsExactly("-XX:AOTCacheOutput=" + cache, "-Xlog:aot*=off", "-Xlog:aot=error:stderr");
        assertThat(run(Map.of(), "--aot-cache", java.toString(), cache.toString(), jar.toString(), "serve").out())
                .as("no cache yet").isEmpty();

        Files.writeString(cache, "cache");
        Files.setLastModifiedTime(cache, FileTime.fromMillis(
                Files.getLastModifiedTime(jar).toMillis() + 5_000));
        assertThat(run(Map.of(), "--aot-cache", java.toString(), cache.toString(), jar.toString(), "serve").out()
                .lines()).containsExactly("-XX:AOTCache=" + cache, "-Xlog:aot*=off", "-Xlog:aot=error:stderr");
        assertThat(run(Map.of("CACHEGATE_AOT", "off"), "--aot-cache", java.toString(), cache.toString(),
                jar.toString(), "serve").out()).isEmpty();

        // A jar rebuilt after the training: the cache is of other classes, so it is left out.
        Files.setLastModifiedTime(jar, FileTime.fromMillis(
                Files.getLastModifiedTime(cache).toMillis() + 5_000));
        assertThat(run(Map.of(), "--aot-cache", java.toString(), cache.toString(), jar.toString(), "serve").out())
                .isEmpty();
    }

    @Test
    void aotCache_none_beforeJava25() throws Exception {
        Path java21 = jdk("jdk-21", "21.0.5", "java.base");
        Path jar = Files.writeString(tmp.resolve("cachegate.jar"), "jar");
        Path cache = tmp.resolve("cachegate.aot");

        Run run = run(Map.of(), "--aot-cache", java21.toString(), cache.toString(), jar.toString(), "train-aot");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).isEmpty();
    }

    /** A JDK whose release file names its version and modules; its java fails when run, so only the file counts. */
    private Path jdk(String name, String version, String modules) throws IOException {
        Path java = jvms.resolve(name + "/bin/java");
        fakeJava(java, null);
        Files.writeString(jvms.resolve(name + "/release"),
                "JAVA_VERSION=\"" + version + "\"\nMODULES=\"" + modules + "\"\n");
        return java;
    }

    private String findJava(Map<String, String> env) throws Exception {
        Run run = run(env);
        assertThat(run.exit()).as("exit status; stderr: %s", run.err()).isZero();
        return run.out().strip();
    }

    /** Runs bin/find-java with the fake JVM directory and no CACHEGATE_JAVA or JAVA_HOME of this machine. */
    private Run run(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/bash", script().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("CACHEGATE_JAVA");
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("CACHEGATE_DEBUG");
        pb.environment().put("CACHEGATE_JVM_DIRS", jvms.toString());
        pb.environment().putAll(env);
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Run(int exit, String out, String err) {
    }

    /** A java that prints {@code versionLine} on stderr for {@code -version}, as a JDK does (null: it fails). */
    private static void fakeJava(Path file, String versionLine) throws IOException {
        Files.createDirectories(file.getParent());
        String script = versionLine == null ? "#!/bin/sh\nexit 1\n"
                : "#!/bin/sh\necho '" + versionLine + "' >&2\necho 'OpenJDK Runtime Environment' >&2\n";
        Files.writeString(file, script, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** bin/find-java of this checkout, found upwards from the working directory. */
    private static Path script() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("bin/find-java"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("bin/find-java in a parent of %s", Path.of("").toAbsolutePath()).isNotNull();
        return dir.resolve("bin/find-java");
    }
}
