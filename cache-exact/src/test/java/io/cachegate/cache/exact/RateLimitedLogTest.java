package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {

    @Test
    void warn_withinInterval_suppressed() {
        AtomicLong now = new AtomicLong();
        RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), Duration.ofSeconds(10),
                now::get);
        assertThat(log.warn("redis down")).isTrue();
        assertThat(log.warn("redis down")).isFalse();
        now.addAndGet(Duration.ofSeconds(9).toNanos());
        assertThat(log.warn("redis down")).isFalse();
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(log.warn("redis down")).as("one line per interval").isTrue();
        assertThat(log.warn("redis down")).isFalse();
    }
}
