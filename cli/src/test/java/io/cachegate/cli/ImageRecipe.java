package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The top-level Dockerfile as the tests need it: its runtime stage's ENV, COPY destinations,
 * ENTRYPOINT, HEALTHCHECK and EXPOSE, so the tests run the image's command line with the image's paths.
 */
final class ImageRecipe {

    private static final Pattern JSON_STRING = Pattern.compile("\"([^\"]*)\"");

    final Path root;
    final Map<String, String> env = new LinkedHashMap<>();
    final Map<String, String> copies = new LinkedHashMap<>(); // source -> destination file, runtime stage
    final List<String> entrypoint = new ArrayList<>();
    final List<String> healthcheck = new ArrayList<>();
    final List<Integer> exposed = new ArrayList<>();
    final List<String> runs = new ArrayList<>();
    String user = "";
    String workdir = "";

    private ImageRecipe(Path root, List<String> instructions) {
        this.root = root;
        for (String line : instructions) {
            String[] parts = line.split("\\s+", 2);
            String keyword = parts[0].toUpperCase(java.util.Locale.ROOT);
            String rest = parts.length > 1 ? parts[1].trim() : "";
            if (keyword.equals("FROM")) { // only the last (runtime) stage counts
                env.clear();
                copies.clear();
                runs.clear();
            }
            switch (keyword) {
                case "ENV" -> {
                    for (String pair : rest.split("\\s+")) {
                        String[] kv = pair.split("=", 2);
                        env.put(kv[0], kv[1]);
                    }
                }
                case "COPY" -> {
                    List<String> words = new ArrayList<>(List.of(rest.split("\\s+")));
                    words.removeIf(w -> w.startsWith("--"));
                    String destination = words.remove(words.size() - 1);
                    for (String source : words) {
                        String file = source.substring(source.lastIndexOf('/') + 1);
                        copies.put(source, destination.endsWith("/") ? destination + file : destination);
                    }
                }
                case "ENTRYPOINT" -> entrypoint.addAll(jsonArray(rest));
                case "HEALTHCHECK" -> healthcheck.addAll(jsonArray(rest.substring(rest.indexOf("CMD") + 3)));
                case "EXPOSE" -> {
                    for (String port : rest.split("\\s+")) {
                        exposed.add(Integer.parseInt(port));
                    }
                }
                case "RUN" -> runs.add(rest);
                case "USER" -> user = rest;
                case "WORKDIR" -> workdir = rest;
                default -> { }
            }
        }
    }

    /** Reads the Dockerfile at the repository's top level (found upwards from the working directory). */
    static ImageRecipe read() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("Dockerfile"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a Dockerfile in a parent of %s", Path.of("").toAbsolutePath()).isNotNull();
        try {
            List<String> instructions = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : Files.readAllLines(dir.resolve("Dockerfile"))) {
                String trimmed = line.strip();
                if (trimmed.startsWith("#") || trimmed.isEmpty()) {
                    continue;
                }
                if (trimmed.endsWith("\\")) {
                    current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                    continue;
                }
                instructions.add(current.append(trimmed).toString());
                current.setLength(0);
            }
            return new ImageRecipe(dir, instructions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String env(String name) {
        assertThat(env).as("the Dockerfile's ENV").containsKey(name);
        return env.get(name);
    }

    /** Where the image has the file the repository holds at {@code source} (a COPY of the runtime stage). */
    String copied(String source) {
        assertThat(copies).as("the Dockerfile's COPY sources").containsKey(source);
        return copies.get(source);
    }

    /** The repository file the image has at {@code imagePath}. */
    Path sourceOf(String imagePath) {
        return copies.entrySet().stream().filter(e -> e.getValue().equals(imagePath))
                .map(e -> root.resolve(e.getKey())).findFirst()
                .orElseThrow(() -> new AssertionError("nothing in the Dockerfile is copied to " + imagePath));
    }

    private static List<String> jsonArray(String text) {
        List<String> words = new ArrayList<>();
        Matcher m = JSON_STRING.matcher(text);
        while (m.find()) {
            words.add(m.group(1));
        }
        return words;
    }
}
