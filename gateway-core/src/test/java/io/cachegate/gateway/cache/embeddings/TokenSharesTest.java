package io.cachegate.gateway.cache.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenSharesTest {

    @Test
    void split_proportionalWeights_giveExactShares() {
        assertThat(TokenShares.split(12, new int[] {1, 2, 3})).containsExactly(2, 4, 6);
    }

    @Test
    void split_remainders_goToTheLargestThenTheEarliest() {
        // 10 over weights 1,1,1: 3.33 each; the one left over goes to the first.
        assertThat(TokenShares.split(10, new int[] {1, 1, 1})).containsExactly(4, 3, 3);
        // 7 over 1,2: 2.33 and 4.67; the larger remainder (.67) takes the token.
        assertThat(TokenShares.split(7, new int[] {1, 2})).containsExactly(2, 5);
    }

    @Test
    void split_noUsage_isAllZero() {
        assertThat(TokenShares.split(0, new int[] {5, 7})).containsExactly(0, 0);
    }

    @Test
    void split_anyTotalAndWeights_addUpToTheTotal() {
        Random random = new Random(14);
        for (int round = 0; round < 500; round++) {
            int[] weights = random.ints(1 + random.nextInt(40), 0, 300).toArray();
            int total = random.nextInt(100_000);
            int[] shares = TokenShares.split(total, weights);
            assertThat(Arrays.stream(shares).sum()).as("round %d", round).isEqualTo(total);
            assertThat(Arrays.stream(shares).min().orElse(0)).isNotNegative();
        }
    }
}
