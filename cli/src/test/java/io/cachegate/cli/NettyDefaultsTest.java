package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class NettyDefaultsTest {

    @Test
    void unset_samplesOneBufferIn4096() {
        Properties system = new Properties();
        NettyDefaults.apply(system);
        assertThat(system.getProperty("io.netty.leakDetection.samplingInterval")).isEqualTo("4096");
    }

    @Test
    void operatorsValue_isKept() {
        Properties system = new Properties();
        system.setProperty("io.netty.leakDetection.samplingInterval", "1");
        NettyDefaults.apply(system);
        assertThat(system.getProperty("io.netty.leakDetection.samplingInterval")).isEqualTo("1");
    }
}
