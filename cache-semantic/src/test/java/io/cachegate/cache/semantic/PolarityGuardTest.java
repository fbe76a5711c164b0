package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PolarityGuardTest {

    private final PairGuard guard = PairGuard.polarity();

    @Test
    void oppositeActions_areRejected_inEitherOrder() {
        assertThat(guard.rejects("How do I enable 2FA?", "How do I disable 2FA?")).isTrue();
        assertThat(guard.rejects("Please unlock my card", "Can you lock my card")).isTrue();
    }

    @Test
    void theSameAction_orATextNamingBoth_isNotRejected() {
        assertThat(guard.rejects("How do I enable 2FA?", "How can I turn on 2FA, enable it?")).isFalse();
        assertThat(guard.rejects("Enable or disable 2FA?", "How do I disable 2FA?")).as("the first names both")
                .isFalse();
        assertThat(guard.rejects("Why was my transfer declined?", "Why did my transfer fail?")).isFalse();
        assertThat(guard.name()).isEqualTo("polarity");
    }
}
