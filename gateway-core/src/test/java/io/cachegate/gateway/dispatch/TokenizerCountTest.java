package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.admission.TokenEstimator;
import io.cachegate.gateway.api.OpenAiRequest;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerCountTest {

    @TempDir
    Path dir;

    /** The bundled embedding model's tokenizer (a BERT WordPiece tokenizer.json) stands in for a model's. */
    private TokenizerCount bundled() throws Exception {
        Path file = dir.resolve("tokenizer.json");
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("bge-small-en-v1.5-q-tokenizer.json")) {
            assertThat(in).as("bundled tokenizer resource").isNotNull();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return TokenizerCount.load(file);
    }

    @Test
    void estimate_countsTheTokenizersTokens() throws Exception {
        try (TokenizerCount count = bundled()) {
            assertThat(count.estimate("")).isZero();
            // [CLS] hello world [SEP]
            assertThat(count.estimate("hello world")).isEqualTo(4);
            long words = count.estimate("the quick brown fox jumps over the lazy dog ".repeat(200));
            assertThat(words).as("no truncation at the model's 512").isGreaterThan(1800);
            assertThat(count.cost("hello world", OptionalLong.of(100), 1024)).isEqualTo(104);
        }
    }

    @Test
    void estimate_hugeText_isEstimatedNotCounted() throws Exception {
        try (TokenizerCount count = bundled()) {
            String huge = "x ".repeat(TokenizerCount.MAX_EXACT_CHARS);
            assertThat(count.estimate(huge)).isEqualTo(TokenEstimator.heuristic().estimate(huge));
        }
    }

    @Test
    void promptText_joinsContentsAndTextParts() throws Exception {
        ObjectMapper json = new ObjectMapper();
        assertThat(OpenAiRequest.promptText(json.readTree("[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"},{\"type\":\"image_url\"}]}]")))
                .isEqualTo("be brief\nhi\n");
        assertThat(OpenAiRequest.promptText(json.readTree("\"once upon a time\""))).isEqualTo("once upon a time");
        assertThat(OpenAiRequest.promptText(json.readTree("[\"a\",\"b\"]"))).isEqualTo("a\nb\n");
        assertThat(OpenAiRequest.promptText(null)).isEmpty();
    }
}
