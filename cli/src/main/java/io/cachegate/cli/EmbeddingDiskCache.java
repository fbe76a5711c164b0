package io.cachegate.cli;

import io.cachegate.cache.semantic.Embedder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Embeds texts for {@code eval-semantic}, keeping each vector in a file named by the SHA-256 of its text
 * under a directory per model id, so a rerun costs no model time. Texts go to the embedder one per call,
 * as the gateway sends them, with a bounded number in flight.
 */
final class EmbeddingDiskCache {

    private static final int IN_FLIGHT = 256;

    private final Embedder embedder;
    private final Path directory;
    private int computed;

    EmbeddingDiskCache(Embedder embedder, Path root) throws IOException {
        this.embedder = embedder;
        this.directory = root.resolve(embedder.modelId().replaceAll("[^A-Za-z0-9._-]", "_"));
        Files.createDirectories(directory);
    }

    /** The directory the vectors go under: {@code chosen} ({@code --cache-dir}), or one under the temporary directory. */
    static Path root(Path chosen) {
        return chosen != null ? chosen : Path.of(System.getProperty("java.io.tmpdir"), "cachegate-eval-cache");
    }

    /** The vectors of the texts, in order. */
    float[][] embed(List<String> texts) throws IOException, InterruptedException, ExecutionException {
        float[][] vectors = new float[texts.size()][];
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            vectors[i] = read(file(texts.get(i)));
            if (vectors[i] == null) {
                missing.add(i);
            }
        }
        for (int from = 0; from < missing.size(); from += IN_FLIGHT) {
            List<Integer> chunk = missing.subList(from, Math.min(from + IN_FLIGHT, missing.size()));
            List<CompletableFuture<float[][]>> futures = new ArrayList<>(chunk.size());
            for (int i : chunk) {
                futures.add(embedder.embed(List.of(texts.get(i))));
            }
            for (int j = 0; j < chunk.size(); j++) {
                int i = chunk.get(j);
                vectors[i] = futures.get(j).get()[0];
                write(file(texts.get(i)), vectors[i]);
                computed++;
            }
        }
        return vectors;
    }

    /** The id of the model whose vectors these are (each model has its own directory). */
    String modelId() {
        return embedder.modelId();
    }

    /** Texts the model embedded in this run (the rest came from disk). */
    int computed() {
        return computed;
    }

    private Path file(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(hash) + ".f32");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private float[] read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        if (bytes.remaining() != embedder.dimension() * Float.BYTES) {
            return null;
        }
        float[] vector = new float[embedder.dimension()];
        bytes.asFloatBuffer().get(vector);
        return vector;
    }

    private void write(Path file, float[] vector) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES);
        bytes.asFloatBuffer().put(vector);
        Path tmp = Files.createTempFile(directory, "v", ".tmp");
        Files.write(tmp, bytes.array());
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
