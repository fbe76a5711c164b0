package io.cachegate.cache.semantic;

import ai.onnxruntime.OrtEnvironment;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts ONNX Runtime's and DJL's native libraries in one fixed directory that every start reuses.
 *
 * <p>Left alone, ONNX Runtime extracts its libraries into a new {@code java.io.tmpdir/onnxruntime-java*}
 * on each start and only asks {@code deleteOnExit} to remove it, which deletes the directory before
 * the files in it, so an empty directory is left behind every time. With {@code onnxruntime.native.path}
 * pointing at libraries already extracted, its temporary directory stays empty and is removed at exit.
 * DJL's tokenizer library goes to {@code ENGINE_CACHE_DIR}, which otherwise falls back to
 * {@code java.io.tmpdir} when the home directory is not writable (a container's).
 */
public final class NativeLibraries {

    /** The system property naming the directory; wins over {@link #DIR_ENV}. */
    public static final String DIR_PROPERTY = "cachegate.native.dir";
    /** The environment variable naming the directory. */
    public static final String DIR_ENV = "CACHEGATE_NATIVE_DIR";

    static final String ORT_PATH_PROPERTY = "onnxruntime.native.path";
    static final String DJL_ENGINE_DIR = "ENGINE_CACHE_DIR";
    private static final List<String> ORT_LIBRARIES = List.of("onnxruntime", "onnxruntime4j_jni");
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibraries.class);

    private static boolean prepared;

    private NativeLibraries() {
    }

    /**
     * Chooses the directory ({@value #DIR_PROPERTY}, else {@value #DIR_ENV}, else
     * {@code ~/.cache/cachegate/native}), extracts ONNX Runtime's libraries there unless already done and
     * points both libraries at it. Settings the user gave ({@code onnxruntime.native.path},
     * {@code ENGINE_CACHE_DIR}, {@code DJL_CACHE_DIR}) are kept. Call before the first ONNX Runtime or DJL
     * tokenizer class is used; later calls do nothing. A directory that cannot be written is logged and
     * leaves the libraries' own defaults.
     */
    public static synchronized void prepare() {
        if (prepared) {
            return;
        }
        prepared = true;
        Path dir = directory(System.getProperty(DIR_PROPERTY), System.getenv(DIR_ENV), System.getProperty("user.home"));
        if (System.getenv(DJL_ENGINE_DIR) == null && System.getProperty(DJL_ENGINE_DIR) == null
                && System.getenv("DJL_CACHE_DIR") == null && System.getProperty("DJL_CACHE_DIR") == null) {
            System.setProperty(DJL_ENGINE_DIR, dir.resolve("djl").toString());
        }
        if (System.getProperty(ORT_PATH_PROPERTY) != null) {
            return;
        }
        try {
            extractOnnxRuntime(dir).ifPresent(ort -> System.setProperty(ORT_PATH_PROPERTY, ort.toString()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot extract ONNX Runtime's native libraries to {} ({}); it will extract them to {} itself",
                    dir, e.toString(), System.getProperty("java.io.tmpdir"));
        }
    }

    static Path directory(String property, String env, String home) {
        if (property != null && !property.isBlank()) {
            return Path.of(property).toAbsolutePath();
        }
        if (env != null && !env.isBlank()) {
            return Path.of(env).toAbsolutePath();
        }
        return Path.of(home, ".cache", "cachegate", "native");
    }

    /**
     * Extracts ONNX Runtime's libraries for this platform into a sub-directory of {@code dir} named by the
     * platform and the libraries' fingerprint, keeping files already there; empty when the jar has no
     * library for this platform. Each file is written under a temporary name and renamed, so gateways
     * starting together never load a half-written library.
     */
    static Optional<Path> extractOnnxRuntime(Path dir) throws IOException {
        Optional<String> platform = platform();
        if (platform.isEmpty()) {
            return Optional.empty();
        }
        String resourceDir = "/ai/onnxruntime/native/" + platform.get() + "/";
        URL main = OrtEnvironment.class.getResource(resourceDir + System.mapLibraryName(ORT_LIBRARIES.get(0)));
        if (main == null) {
            return Optional.empty();
        }
        Path target = dir.resolve("onnxruntime-" + platform.get() + "-" + fingerprint(main));
        Files.createDirectories(target);
        for (String library : ORT_LIBRARIES) {
            String name = System.mapLibraryName(library);
            Path file = target.resolve(name);
            if (Files.isRegularFile(file)) {
                continue;
            }
            try (InputStream in = OrtEnvironment.class.getResourceAsStream(resourceDir + name)) {
                if (in == null) {
                    return Optional.empty();
                }
                Path part = Files.createTempFile(target, name, ".part");
                try {
                    Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
                    Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(part);
                }
            }
        }
        return Optional.of(target);
    }

    /** The jar entry's CRC when the library comes from a jar (as it does), else its size. */
    private static String fingerprint(URL library) throws IOException {
        URLConnection connection = library.openConnection();
        if (connection instanceof JarURLConnection jar && jar.getJarEntry().getCrc() != -1) {
            return Long.toHexString(jar.getJarEntry().getCrc());
        }
        return Long.toString(connection.getContentLengthLong());
    }

    /** ONNX Runtime's name for this platform's resource directory, as its own loader computes it. */
    private static Optional<String> platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.contains("mac") || os.contains("darwin") ? "osx"
                : os.contains("win") ? "win" : os.contains("nux") ? "linux" : null;
        String archName = arch.startsWith("amd64") || arch.startsWith("x86_64") ? "x64"
                : arch.startsWith("aarch64") ? "aarch64" : null;
        return osName == null || archName == null ? Optional.empty() : Optional.of(osName + "-" + archName);
    }
}
