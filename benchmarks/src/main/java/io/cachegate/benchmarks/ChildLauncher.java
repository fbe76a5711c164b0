package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a scenario starts {@code cachegate <sub-command>} (a simulator, a gateway) in a JVM of its own, so load
 * generator, simulator and gateway share neither a heap nor a GC: the running JVM's executable (or another java,
 * for {@code bench compare --java}) with the running JVM's class path, and the main class of the command line that
 * runs the benchmarks (the cli's, which this module cannot name).
 */
public final class ChildLauncher {

    private static final Pattern MAJOR = Pattern.compile(" version \"(?:1\\.)?(\\d+)");
    /** Each java executable's major version, asked once (0 when unknown). */
    private static final Map<String, Integer> MAJORS = new ConcurrentHashMap<>();

    private final String mainClass;

    /** Children run {@code mainClass} (e.g. the cli's {@code CachegateCli}) from this JVM's class path. */
    public ChildLauncher(String mainClass) {
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
    }

    /** The running JVM's java executable: children follow the launcher's choice of JDK unless told otherwise. */
    static String currentJava() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /**
     * Starts {@code <mainClass> <args>} on the {@code java} executable with {@code jvmOptions} (whitespace-separated)
     * then {@code extraJvmOptions}.
     */
    Process start(File log, String java, String jvmOptions, List<String> extraJvmOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java);
        // As the cachegate jar's manifest does for `java -jar`: no warning from Java 22 on when Netty or ONNX Runtime
        // loads its native library (Java 17 takes the option too).
        command.add("--enable-native-access=ALL-UNNAMED");
        // As ./cachegate does (bin/find-java --unsafe-access): Netty's buffers through sun.misc.Unsafe from Java 23 on.
        if (major(java) >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        if (!jvmOptions.isBlank()) {
            command.addAll(List.of(jvmOptions.trim().split("\\s+")));
        }
        command.addAll(extraJvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    }

    /** The major version of {@code java} (this JVM's own without asking), 0 when it says none. */
    static int major(String java) {
        if (java.equals(currentJava())) {
            return Runtime.version().feature();
        }
        return MAJORS.computeIfAbsent(java, j -> ChildJvm.version(j).map(MAJOR::matcher).filter(Matcher::find)
                .map(m -> Integer.parseInt(m.group(1))).orElse(0));
    }
}
