package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildLauncherTest {

    @TempDir
    Path tmp;

    @Test
    void major_ofThisJvm_isItsFeatureVersion() {
        assertThat(ChildLauncher.major(ChildLauncher.currentJava())).isEqualTo(Runtime.version().feature());
    }

    @Test
    void major_ofAnotherJava_isReadFromItsVersionLine_includingTheOldOneDotForm() throws IOException {
        assertThat(ChildLauncher.major(fakeJava("j25", "openjdk version \"25.0.1\" 2025-10-21"))).isEqualTo(25);
        assertThat(ChildLauncher.major(fakeJava("j8", "java version \"1.8.0_392\""))).isEqualTo(8);
        assertThat(ChildLauncher.major(fakeJava("none", "no version here"))).isZero();
        assertThat(ChildLauncher.major(tmp.resolve("missing").toString())).isZero();
    }

    /** A shell script that prints {@code line} on stderr, as {@code java -version} does. */
    private String fakeJava(String name, String line) throws IOException {
        assumeTrue(!System.getProperty("os.name").startsWith("Windows"));
        Path java = tmp.resolve(name);
        Files.writeString(java, "#!/bin/sh\necho 'Picked up JAVA_TOOL_OPTIONS: -Xss1m' >&2\necho '" + line + "' >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java.toString();
    }
}
