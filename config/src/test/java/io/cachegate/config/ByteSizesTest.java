package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizesTest {

    @Test
    void parse_binaryAndDecimalUnits() {
        assertThat(ByteSizes.parse("4MiB")).isEqualTo(4L * 1024 * 1024);
        assertThat(ByteSizes.parse("512KiB")).isEqualTo(512L * 1024);
        assertThat(ByteSizes.parse("1GiB")).isEqualTo(1L << 30);
        assertThat(ByteSizes.parse("10KB")).isEqualTo(10_000);
        assertThat(ByteSizes.parse("2mb")).isEqualTo(2_000_000);
        assertThat(ByteSizes.parse("4 MiB")).isEqualTo(4L << 20);
    }

    @Test
    void parse_plainBytes() {
        assertThat(ByteSizes.parse("123")).isEqualTo(123);
        assertThat(ByteSizes.parse("0")).isZero();
        assertThat(ByteSizes.parse("100_000")).isEqualTo(100_000);
        assertThat(ByteSizes.parse("7B")).isEqualTo(7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "MiB", "4XB", "1.5MiB", "four", "4MiBs", "_1"})
    void parse_invalid(String text) {
        assertThatThrownBy(() -> ByteSizes.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"" + text + "\" is not a size (e.g. 512KiB, 4MiB, 10KB)");
    }

    @Test
    void parse_negative() {
        assertThatThrownBy(() -> ByteSizes.parse("-1KiB"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"-1KiB\" is negative; sizes must be 0 or more");
    }

    @Test
    void parse_overflow() {
        assertThatThrownBy(() -> ByteSizes.parse("9999999999TiB"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too large");
    }
}
