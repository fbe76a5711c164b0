package io.cachegate.cli.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DigestSetTest {

    @Test
    void seenOrAdd_secondTime_isSeen_acrossGrowth() {
        DigestSet set = new DigestSet(100_000);
        for (long i = 0; i < 50_000; i++) {
            assertThat(set.seenOrAdd(i * 0x9E3779B97F4A7C15L)).isFalse();
        }
        for (long i = 0; i < 50_000; i++) {
            assertThat(set.seenOrAdd(i * 0x9E3779B97F4A7C15L)).isTrue();
        }
        assertThat(set.size()).isEqualTo(50_000);
        assertThat(set.saturated()).isFalse();
    }

    @Test
    void seenOrAdd_atTheCap_forgetsNewDigests_keepsOldOnes_andSaysSo() {
        DigestSet set = new DigestSet(3);
        set.seenOrAdd(1);
        set.seenOrAdd(2);
        set.seenOrAdd(3);

        assertThat(set.seenOrAdd(4)).isFalse();
        assertThat(set.seenOrAdd(4)).isFalse(); // not remembered: its repeat is under-counted
        assertThat(set.seenOrAdd(2)).isTrue();
        assertThat(set.size()).isEqualTo(3);
        assertThat(set.saturated()).isTrue();
    }

    @Test
    void zero_isADigestLikeAnyOther() {
        DigestSet set = new DigestSet(10);
        assertThat(set.contains(0)).isFalse();
        assertThat(set.seenOrAdd(0)).isFalse();
        assertThat(set.seenOrAdd(0)).isTrue();
        assertThat(set.contains(0)).isTrue();
    }
}
