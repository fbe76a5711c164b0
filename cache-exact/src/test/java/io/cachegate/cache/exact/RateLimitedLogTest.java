package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {

    @Test
    void warn_withinInterval_suppressed() {
        FakeTicker ticker = new FakeTicker();
        RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), Duration.ofSeconds(10),
                ticker);
        assertThat(log.warn("redis down")).isTrue();
        assertThat(log.warn("redis down")).isFalse();
        ticker.advance(Duration.ofSeconds(9));
        assertThat(log.warn("redis down")).isFalse();
        ticker.advance(Duration.ofSeconds(1));
        assertThat(log.warn("redis down")).as("one line per interval").isTrue();
        assertThat(log.warn("redis down")).isFalse();
    }
}
