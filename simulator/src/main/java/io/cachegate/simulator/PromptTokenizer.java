package io.cachegate.simulator;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Turns a prompt's text into token ids with a HuggingFace {@code tokenizer.json} (DJL's binding of the Rust
 * tokenizers), the way the gateway tokenizes it, so both cut a prompt into the same token blocks. No special
 * tokens, no truncation, no padding: the ids of the text alone, however long. Thread-safe (the native
 * tokenizer is); close it to free the native handle.
 */
final class PromptTokenizer implements AutoCloseable {

    /** The tokenizer {@code bundled} names: bge-small-en-v1.5's, from the langchain4j embedding jar at its root. */
    static final String BUNDLED = "bundled";
    static final String BUNDLED_RESOURCE = "bge-small-en-v1.5-q-tokenizer.json";

    private static final Map<String, String> OPTIONS = Map.of(
            "addSpecialTokens", "false",
            "truncation", "false",
            "padding", "false");

    private final HuggingFaceTokenizer tokenizer;

    private PromptTokenizer(HuggingFaceTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /**
     * Loads {@code spec}: {@value #BUNDLED}, or the path of a {@code tokenizer.json}.
     *
     * @throws IllegalArgumentException when the file is missing or is not a tokenizer
     */
    static PromptTokenizer load(String spec) {
        try (InputStream in = open(spec)) {
            return new PromptTokenizer(HuggingFaceTokenizer.newInstance(in, OPTIONS));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("kv tokenizer: no such file: " + spec);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("kv tokenizer: cannot load " + spec + ": " + e.getMessage(), e);
        }
    }

    private static InputStream open(String spec) throws IOException {
        if (BUNDLED.equals(spec)) {
            InputStream in = PromptTokenizer.class.getClassLoader().getResourceAsStream(BUNDLED_RESOURCE);
            if (in == null) {
                throw new IOException("class-path resource " + BUNDLED_RESOURCE + " is missing");
            }
            return in;
        }
        return Files.newInputStream(Path.of(spec));
    }

    /** The token ids of {@code text}. */
    int[] tokenize(String text) {
        Encoding encoding = tokenizer.encode(text);
        long[] ids = encoding.getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = (int) ids[i];
        }
        return out;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
