package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrefixHashesTest {

    @Test
    void of_samePrefixDifferentSuffix_sharesLeadingBlocksOnly() {
        String system = "s".repeat(40);
        PrefixHashes a = PrefixHashes.of(system + "first question about cats....", 10, 100);
        PrefixHashes b = PrefixHashes.of(system + "another question on dogs.....", 10, 100);
        assertThat(a.size()).isEqualTo(b.size()).isEqualTo(6);
        for (int i = 0; i < 4; i++) {
            assertThat(a.get(i)).isEqualTo(b.get(i));
        }
        assertThat(a.get(4)).isNotEqualTo(b.get(4));
        assertThat(a.get(5)).isNotEqualTo(b.get(5));
    }

    @Test
    void of_isChained_sameBlockAfterDifferentPrefixDiffers() {
        PrefixHashes a = PrefixHashes.of("aaaaaaaaaaXXXXXXXXXX", 10, 100);
        PrefixHashes b = PrefixHashes.of("bbbbbbbbbbXXXXXXXXXX", 10, 100);
        assertThat(a.get(1)).isNotEqualTo(b.get(1));
    }

    @Test
    void of_identicalBlocksAtDifferentPositions_differ() {
        PrefixHashes h = PrefixHashes.of("x".repeat(30), 10, 100);
        assertThat(h.get(0)).isNotEqualTo(h.get(1));
        assertThat(h.get(1)).isNotEqualTo(h.get(2));
    }

    @Test
    void of_trailingPartialBlock_isNotHashed() {
        assertThat(PrefixHashes.of("x".repeat(29), 10, 100).size()).isEqualTo(2);
        assertThat(PrefixHashes.of("x".repeat(9), 10, 100).isEmpty()).isTrue();
    }

    @Test
    void of_maxBlocks_boundsTheWork() {
        PrefixHashes capped = PrefixHashes.of("y".repeat(1000), 10, 7);
        assertThat(capped.size()).isEqualTo(7);
        assertThat(capped.get(6)).isEqualTo(PrefixHashes.of("y".repeat(1000), 10, 100).get(6));
    }

    @Test
    void of_isDeterministic() {
        assertThat(PrefixHashes.of("hello world, hello world", 4, 10))
                .isEqualTo(PrefixHashes.of("hello world, hello world", 4, 10));
    }
}
