package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    @Test
    void duration_writtenAsOpenAiDoes() {
        assertThat(RateLimitHeaders.duration(0)).isEqualTo("0s");
        assertThat(RateLimitHeaders.duration(1)).as("rounded up: never too early").isEqualTo("1ms");
        assertThat(RateLimitHeaders.duration(Duration.ofMillis(120).toNanos())).isEqualTo("120ms");
        assertThat(RateLimitHeaders.duration(Duration.ofSeconds(1).toNanos())).isEqualTo("1s");
        assertThat(RateLimitHeaders.duration(Duration.ofMillis(1500).toNanos())).isEqualTo("1.5s");
        assertThat(RateLimitHeaders.duration(Duration.ofMillis(8640).toNanos())).isEqualTo("8.64s");
        assertThat(RateLimitHeaders.duration(Duration.ofMinutes(6).toNanos())).isEqualTo("6m0s");
        assertThat(RateLimitHeaders.duration(Duration.ofSeconds(3723).toNanos())).isEqualTo("1h2m3s");
    }

    @Test
    void retryAfterSeconds_roundedUp_atLeastOne() {
        assertThat(RateLimitHeaders.retryAfterSeconds(0)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ofMillis(500).toNanos())).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ofMillis(1001).toNanos())).isEqualTo(2);
    }
}
