package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class GlobsTest {

    @Test
    void compile_star_matchesEverythingButNull() {
        Predicate<String> any = Globs.compile("*");
        assertThat(any.test("")).isTrue();
        assertThat(any.test("llama/3.1")).isTrue();
        assertThat(any.test(null)).isFalse();
    }

    @Test
    void compile_literal_matchesOnlyItself() {
        Predicate<String> glob = Globs.compile("gpt-4o");
        assertThat(glob.test("gpt-4o")).isTrue();
        assertThat(glob.test("gpt-4o-mini")).isFalse();
        assertThat(glob.test("GPT-4o")).isFalse();
    }

    @Test
    void compile_starAndQuestionMark() {
        assertThat(Globs.compile("llama-3.1-*").test("llama-3.1-8b")).isTrue();
        assertThat(Globs.compile("llama-3.1-*").test("llama-3.2-8b")).isFalse();
        assertThat(Globs.compile("/v1/*").test("/v1/chat/completions")).isTrue();
        assertThat(Globs.compile("*-8b").test("qwen-8b")).isTrue();
        assertThat(Globs.compile("a*b*c").test("axxbyyc")).isTrue();
        assertThat(Globs.compile("a*b*c").test("axxbyy")).isFalse();
        assertThat(Globs.compile("gpt-?").test("gpt-4")).isTrue();
        assertThat(Globs.compile("gpt-?").test("gpt-4o")).isFalse();
        assertThat(Globs.compile("a**").test("a")).isTrue();
    }

    @Test
    void compile_regexCharactersAreLiteral() {
        assertThat(Globs.compile("qwen2.5-*").test("qwen2x5-0.5b")).isFalse();
        assertThat(Globs.compile("qwen2.5-*").test("qwen2.5-0.5b")).isTrue();
        assertThat(Globs.compile("[a]*").test("[a]x")).isTrue();
        assertThat(Globs.compile("[a]*").test("ax")).isFalse();
    }

    @Test
    void compile_pathologicalPattern_isFast() {
        String text = "a".repeat(10_000);
        assertThat(Globs.compile("*a*a*a*a*a*a*b").test(text)).isFalse();
    }
}
