package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromptTokensTest {

    @Test
    void theBundledTokenizerRendersTheMinimalTemplateWithoutSpecialTokensOrTruncation() {
        try (PromptTokens tokens = PromptTokens.load(PromptTokens.BUNDLED, Optional.empty())) {
            int[] chat = tokens.chat(List.of(new PromptTokens.Message("system", "You are terse."),
                    new PromptTokens.Message("user", "Hello world")));
            assertThat(chat).containsExactly(tokens.text("system\nYou are terse.\nuser\nHello world\n"));
            assertThat(chat).doesNotContain(101, 102); // BERT's [CLS] and [SEP]: the engine's prompt has none
            String longText = "the quick brown fox jumps over the lazy dog ".repeat(200);
            assertThat(tokens.text(longText).length).isGreaterThan(1_500);
        }
    }

    @Test
    void text_fetchingOnlyTheIds_equalsTheTokenizersFullEncoding() throws IOException {
        String text = "Group 7 instructions. Ünïcode, punctuation (a/b), CamelCase words and numbers 12345 "
                .repeat(50) + "\n\ttabs  and  spaces\n";
        Map<String, String> options = Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false");
        try (PromptTokens tokens = PromptTokens.load(PromptTokens.BUNDLED, Optional.empty());
             InputStream in = PromptTokens.class.getResourceAsStream(PromptTokens.BUNDLED_RESOURCE);
             HuggingFaceTokenizer reference = HuggingFaceTokenizer.newInstance(in, options)) {
            long[] expected = reference.encode(text, false, false).getIds();
            assertThat(Arrays.stream(tokens.text(text)).asLongStream().toArray()).containsExactly(expected);
        }
    }

    @Test
    void aChatTemplateFileIsRenderedAsJinja(@TempDir Path dir) throws IOException {
        Path template = dir.resolve("chat.jinja");
        Files.writeString(template, "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
                + "{% if add_generation_prompt %}<|assistant|>{% endif %}");
        try (PromptTokens tokens = PromptTokens.load(PromptTokens.BUNDLED, Optional.of(template))) {
            int[] chat = tokens.chat(List.of(new PromptTokens.Message("user", "a & b")));
            assertThat(chat).containsExactly(tokens.text("<|user|>a & b<|assistant|>"));
        }
    }
}
