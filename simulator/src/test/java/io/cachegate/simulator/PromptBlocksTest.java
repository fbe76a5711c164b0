package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PromptBlocksTest {

    @Test
    void of_hashesOnlyFullBlocks() {
        PromptBlocks blocks = PromptBlocks.of("m", "abcdefghij", 4);

        assertThat(blocks.chain()).hasSize(2);
        assertThat(blocks.chars()).isEqualTo(10);
        assertThat(PromptBlocks.of("m", "abc", 4).chain()).isEmpty();
    }

    @Test
    void of_sharedPrefix_sharesLeadingHashesOnly() {
        long[] a = PromptBlocks.of("m", "aaaabbbbcccc", 4).chain();
        long[] b = PromptBlocks.of("m", "aaaabbbbdddd", 4).chain();

        assertThat(a[0]).isEqualTo(b[0]);
        assertThat(a[1]).isEqualTo(b[1]);
        assertThat(a[2]).isNotEqualTo(b[2]);
    }

    @Test
    void of_chained_sameBlockAfterDifferentPrefixHashesDifferently() {
        long[] a = PromptBlocks.of("m", "xxxxSAME", 4).chain();
        long[] b = PromptBlocks.of("m", "yyyySAME", 4).chain();

        assertThat(a[1]).isNotEqualTo(b[1]);
    }

    @Test
    void of_otherModel_sharesNothing() {
        assertThat(PromptBlocks.of("a", "aaaabbbb", 4).chain()[0])
                .isNotEqualTo(PromptBlocks.of("b", "aaaabbbb", 4).chain()[0]);
    }

    @Test
    void of_zeroBlockChars_isRejected() {
        assertThatThrownBy(() -> PromptBlocks.of("m", "x", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blockChars");
    }

    @Test
    void ofChat_isRolesAndContentsInOrder() {
        PromptBlocks chat = PromptBlocks.ofChat("m", json(
                "[{\"role\":\"system\",\"content\":\"be brief\"},"
                        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi \"},{\"type\":\"text\",\"text\":\"there\"}]}]"),
                4);

        String text = "system\nbe brief\nuser\nhi there\n";
        assertThat(chat.chars()).isEqualTo(text.length());
        assertThat(chat.chain()).containsExactly(PromptBlocks.of("m", text, 4).chain());
    }

    @Test
    void ofChat_movingTextBetweenMessages_changesTheBlocks() {
        PromptBlocks a = PromptBlocks.ofChat("m",
                json("[{\"role\":\"user\",\"content\":\"abcd\"},{\"role\":\"user\",\"content\":\"efgh\"}]"), 4);
        PromptBlocks b = PromptBlocks.ofChat("m",
                json("[{\"role\":\"user\",\"content\":\"abcdefgh\"},{\"role\":\"user\",\"content\":\"\"}]"), 4);

        assertThat(a.chain()[1]).isEqualTo(b.chain()[1]); // "\nabc" in both
        assertThat(a.chain()[2]).isNotEqualTo(b.chain()[2]); // "d\nus" against "defg"
    }

    @Test
    void ofPrompt_textAndTokenIds() {
        assertThat(PromptBlocks.ofPrompt("m", json("\"aaaabbbb\""), 4).chain())
                .containsExactly(PromptBlocks.of("m", "aaaabbbb", 4).chain());
        assertThat(PromptBlocks.ofPrompt("m", json("[1,2,3,4,5]"), 4).chars()).isEqualTo("[1,2,3,4,5]".length());
    }
}
