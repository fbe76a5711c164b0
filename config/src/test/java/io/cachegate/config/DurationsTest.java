package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @Test
    void parse_singleUnits() {
        assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
    }

    @Test
    void parse_combinedUnits() {
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("1m30s500ms")).isEqualTo(Duration.ofMillis(90_500));
        assertThat(Durations.parse(" 2s ")).isEqualTo(Duration.ofSeconds(2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10", "ten minutes", "1.5h", "-5s", "5 s", "5w", "h", "1h30"})
    void parse_invalid(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"" + text + "\" is not a duration (e.g. 500ms, 10m, 1h)");
    }

    @Test
    void parse_overflow() {
        assertThatThrownBy(() -> Durations.parse("99999999999999999999d"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too large");
    }

    @Test
    void format_roundTrips() {
        for (String text : new String[] {"0s", "250ms", "2s", "10m", "1h30m", "1d", "1d2h3m4s5ms"}) {
            assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
        }
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(Durations.format(Duration.ofNanos(1_500))).isEqualTo("1us500ns");
    }
}
