package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GatewayHeadersTest {

    @Test
    void appendTiming_formatsMillisWithThreeDecimals() {
        assertThat(timing(12_345_678)).isEqualTo("upstream;dur=12.345");
        assertThat(timing(1_005_000)).isEqualTo("upstream;dur=1.005");
        assertThat(timing(1_050_000)).isEqualTo("upstream;dur=1.050");
        assertThat(timing(2_000_000_000L)).isEqualTo("upstream;dur=2000.000");
    }

    @Test
    void appendTiming_subMicrosecond_isZero() {
        assertThat(timing(0)).isEqualTo("upstream;dur=0.000");
        assertThat(timing(999)).isEqualTo("upstream;dur=0.000");
        assertThat(timing(1_000)).isEqualTo("upstream;dur=0.001");
    }

    @Test
    void appendTiming_severalMetrics_areCommaSeparated() {
        StringBuilder out = new StringBuilder();
        GatewayHeaders.appendTiming(out, "upstream", 3_000_000);
        GatewayHeaders.appendTiming(out, "total", 4_500_000);
        assertThat(out).hasToString("upstream;dur=3.000, total;dur=4.500");
    }

    private static String timing(long nanos) {
        StringBuilder out = new StringBuilder();
        GatewayHeaders.appendTiming(out, "upstream", nanos);
        return out.toString();
    }
}
