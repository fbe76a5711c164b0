package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibrariesTest {

    @Test
    void extractOnnxRuntime_secondCall_reusesTheFilesOfTheFirst(@TempDir Path dir) throws IOException {
        Path first = NativeLibraries.extractOnnxRuntime(dir).orElseThrow();
        Path library = first.resolve(System.mapLibraryName("onnxruntime"));
        Path jni = first.resolve(System.mapLibraryName("onnxruntime4j_jni"));
        assertThat(library).isRegularFile();
        assertThat(jni).isRegularFile();
        Object inode = Files.readAttributes(library, BasicFileAttributes.class).fileKey();

        Path second = NativeLibraries.extractOnnxRuntime(dir).orElseThrow();

        assertThat(second).isEqualTo(first);
        assertThat(Files.readAttributes(library, BasicFileAttributes.class).fileKey()).isEqualTo(inode);
        try (var files = Files.list(first)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
                    library.getFileName().toString(), jni.getFileName().toString()); // no .part left over
        }
    }

    @Test
    void directory_propertyThenEnvironmentThenHome() {
        assertThat(NativeLibraries.directory("/p", "/e", "/home/u")).isEqualTo(Path.of("/p"));
        assertThat(NativeLibraries.directory(null, "/e", "/home/u")).isEqualTo(Path.of("/e"));
        assertThat(NativeLibraries.directory(" ", "", "/home/u")).isEqualTo(Path.of("/home/u/.cache/cachegate/native"));
    }
}
