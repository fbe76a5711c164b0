package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdminExposureTest {

    @Test
    void isLoopback_namesOnlyThisMachine() {
        assertThat(AdminExposure.isLoopback("127.0.0.1")).isTrue();
        assertThat(AdminExposure.isLoopback("localhost")).isTrue();
        assertThat(AdminExposure.isLoopback("::1")).isTrue();
        assertThat(AdminExposure.isLoopback("[::1]")).isTrue();
        assertThat(AdminExposure.isLoopback("0.0.0.0")).isFalse();
        assertThat(AdminExposure.isLoopback("::")).isFalse();
        assertThat(AdminExposure.isLoopback("10.1.2.3")).isFalse();
    }
}
