package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
