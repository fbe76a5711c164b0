package io.cachegate.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One JVM that {@code bench compare --java LABEL=PATH} runs the Cachegate targets on: the label that goes into the
 * target names ({@code cachegate-memory@25}; empty for the running JVM without {@code --java}: names as they are) and
 * the java executable.
 */
record ChildJvm(String label, String java) {

    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9._-]+");

    /**
     * The {@code LABEL=PATH} items of {@code --java}, in order; every problem (a malformed item, a label twice, a
     * path that is not an executable file) is added to {@code problems} and its item left out.
     */
    static List<ChildJvm> parse(List<String> items, List<String> problems) {
        List<ChildJvm> out = new ArrayList<>();
        Set<String> labels = new HashSet<>();
        for (String item : items) {
            int eq = item.indexOf('=');
            String label = eq < 0 ? "" : item.substring(0, eq).strip();
            String java = eq < 0 ? "" : item.substring(eq + 1).strip();
            if (!LABEL.matcher(label).matches() || java.isEmpty()) {
                problems.add("--java takes LABEL=PATH items (a label of letters, digits, '.', '_' or '-'), e.g. "
                        + "25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java (was \"" + item + "\")");
            } else if (!labels.add(label)) {
                problems.add("--java: the label " + label + " is given twice");
            } else if (!Files.isRegularFile(Path.of(java)) || !Files.isExecutable(Path.of(java))) {
                problems.add("--java " + label + ": " + java + " is not an executable file");
            } else {
                out.add(new ChildJvm(label, java));
            }
        }
        return out;
    }

    /** The first line of {@code java -version} that names the version (e.g. {@code openjdk version "25.0.1" ...}). */
    Optional<String> version() {
        return version(java);
    }

    /** As {@link #version()}, of any java executable; empty when it does not run or says no version. */
    static Optional<String> version(String java) {
        try {
            Process p = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return Optional.empty();
            }
            // A JAVA_TOOL_OPTIONS notice may come first.
            return out.lines().filter(l -> l.contains(" version \"")).findFirst().map(String::strip);
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
