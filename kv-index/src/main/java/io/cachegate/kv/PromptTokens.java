package io.cachegate.kv;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A request's prompt as the engine's token ids: the chat messages rendered with the model's chat template (Jinja,
 * as vLLM renders it) and tokenized with the model's tokenizer (HuggingFace {@code tokenizer.json}, through DJL),
 * special tokens only where the template writes them — so the gateway's block keys fall on the engine's blocks.
 * {@code bundled} is the bge-small-en-v1.5 tokenizer on the class path with the minimal template the simulator uses
 * ({@code role}, newline, {@code content}, newline per message). Thread-safe (the tokenizer is; the template engine
 * renders into a fresh context per call).
 */
public final class PromptTokens implements AutoCloseable {

    public static final String BUNDLED = "bundled";
    static final String BUNDLED_RESOURCE = "/bge-small-en-v1.5-q-tokenizer.json";
    /** The simulator's chat text ({@code simulate-backend --kv-events}); a real model ships its own template. */
    public static final String MINIMAL_TEMPLATE =
            "{% for message in messages %}{{ message.role }}\n{{ message.content }}\n{% endfor %}";

    /** One chat message: its role and its text (a content array's text parts concatenated). */
    public record Message(String role, String content) {
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
        }
    }

    private final HuggingFaceTokenizer tokenizer;
    private final String template;
    private final Jinjava jinja;

    private PromptTokens(HuggingFaceTokenizer tokenizer, String template) {
        this.tokenizer = tokenizer;
        this.template = template;
        // Jinja's defaults as vLLM's (Python jinja2) renders templates: no trimming, no HTML escaping.
        this.jinja = new Jinjava(JinjavaConfig.newBuilder().withTrimBlocks(false).withLstripBlocks(false).build());
    }

    /**
     * @param tokenizer {@value #BUNDLED} or a {@code tokenizer.json} file
     * @param chatTemplate a Jinja template file; without one, {@link #MINIMAL_TEMPLATE}
     */
    public static PromptTokens load(String tokenizer, java.util.Optional<Path> chatTemplate) {
        Map<String, String> options = Map.of("addSpecialTokens", "false", "truncation", "false",
                "padding", "false");
        try {
            HuggingFaceTokenizer t;
            if (BUNDLED.equals(tokenizer)) {
                try (InputStream in = PromptTokens.class.getResourceAsStream(BUNDLED_RESOURCE)) {
                    if (in == null) {
                        throw new IllegalStateException("the bundled tokenizer " + BUNDLED_RESOURCE
                                + " is not on the class path");
                    }
                    t = HuggingFaceTokenizer.newInstance(in, options);
                }
            } else {
                t = HuggingFaceTokenizer.newInstance(Path.of(tokenizer), options);
            }
            String template = chatTemplate.isPresent()
                    ? Files.readString(chatTemplate.get(), StandardCharsets.UTF_8)
                    : MINIMAL_TEMPLATE;
            PromptTokens tokens = new PromptTokens(t, template);
            // The template engine's and the tokenizer's first use (libraries, native code; ~0.4 s on a loaded
            // 2-core machine) paid here, at load, not by the first request.
            tokens.chat(List.of(new Message("user", "warm-up")));
            return tokens;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load tokenizer " + tokenizer, e);
        }
    }

    /** The token ids of a chat request's prompt, as the engine prefills it. */
    public int[] chat(List<Message> messages) {
        List<Map<String, String>> rendered = messages.stream()
                .map(m -> Map.of("role", m.role(), "content", m.content()))
                .toList();
        String text = jinja.render(template, Map.of("messages", rendered, "add_generation_prompt", true));
        return text(text);
    }

    /**
     * The token ids of a text prompt (a completions request). Only the ids are fetched from the native encoding, not
     * the tokens' strings, offsets and masks {@code HuggingFaceTokenizer.encode} builds: about 40% less time for a
     * 2,000-token prompt. The text goes as it is: {@link #load} sets no option that rewrites it before encoding
     * (no lower-casing, no prefix space).
     */
    public int[] text(String prompt) {
        long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), prompt, false);
        long[] ids;
        try {
            ids = TokenizersLibrary.LIB.getTokenIds(encoding);
        } finally {
            TokenizersLibrary.LIB.deleteEncoding(encoding);
        }
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
