package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PromptTokenizerTest {

    private static PromptTokenizer tokenizer;

    @BeforeAll
    static void load() {
        tokenizer = PromptTokenizer.load(PromptTokenizer.BUNDLED);
    }

    @AfterAll
    static void close() {
        tokenizer.close();
    }

    @Test
    void tokenize_bundled_hasNoSpecialTokens() {
        // bge's vocabulary (BERT uncased): "hello" 7592, "world" 2088; no [CLS] 101 / [SEP] 102 around them.
        assertThat(tokenizer.tokenize("Hello world")).containsExactly(7592, 2088);
    }

    @Test
    void tokenize_longText_isNotTruncated() {
        int[] ids = tokenizer.tokenize("word ".repeat(2000));

        assertThat(ids).hasSize(2000); // bge's model stops at 512; the tokenizer must not
    }

    @Test
    void load_missingFile_namesIt() {
        assertThatThrownBy(() -> PromptTokenizer.load("/nonexistent/tokenizer.json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/nonexistent/tokenizer.json");
    }

    /** Not a speed goal: prints what tokenizing a 2,000-token prompt costs, to decide where it runs. */
    @Test
    void tokenize_2000Tokens_reportsItsCost() {
        String text = "The quick brown fox jumps over the lazy dog near the river bank. ".repeat(150);
        for (int i = 0; i < 200; i++) {
            tokenizer.tokenize(text);
        }
        int runs = 200;
        long start = System.nanoTime();
        int tokens = 0;
        for (int i = 0; i < runs; i++) {
            tokens = tokenizer.tokenize(text).length;
        }
        double micros = (System.nanoTime() - start) / 1e3 / runs;
        System.out.printf("tokenize: %d tokens in %.0f us%n", tokens, micros);
        assertThat(tokens).isGreaterThan(1900);
    }
}
