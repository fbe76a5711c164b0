package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvEventsOptionsTest {

    @Test
    void kvEvents_offByDefault_andCharBlocksUnchanged() {
        SimulatorOptions options = SimulatorOptions.defaults();

        assertThat(options.kvEvents().enabled()).isFalse();
        assertThat(options.withPrefixCacheBlocks(64).prefixCacheBlocks()).isEqualTo(64);
    }

    @Test
    void kvEvents_withoutPrefixCache_getsTheDefaultCapacity() {
        SimulatorOptions options = SimulatorOptions.defaults().withKvEvents(SimulatorOptions.KvEvents.on());

        assertThat(options.prefixCacheBlocks()).isEqualTo(SimulatorOptions.DEFAULT_KV_CACHE_BLOCKS);
        assertThat(options.withPrefixCacheBlocks(100).prefixCacheBlocks()).isEqualTo(100);
    }

    @Test
    void kvEvents_badValues_nameTheOption() {
        assertThatThrownBy(() -> new SimulatorOptions.KvEvents(true, 0, "bundled", 0, 10))
                .hasMessage("kv block size (--kv-block-size) must be in [1, 4096], was 0");
        assertThatThrownBy(() -> new SimulatorOptions.KvEvents(true, 16, " ", 0, 10))
                .hasMessageContaining("--kv-tokenizer");
        assertThatThrownBy(() -> new SimulatorOptions.KvEvents(true, 16, "bundled", 65535, 10))
                .hasMessage("kv events port (--kv-events-port) must be in [0, 65534], was 65535");
        assertThatThrownBy(() -> new SimulatorOptions.KvEvents(true, 16, "bundled", 0, -1))
                .hasMessage("kv replay buffer (--kv-replay-buffer) must be in [0, 1000000], was -1");
    }

    @Test
    void start_missingTokenizerFile_failsNamingIt() {
        SimulatorOptions options = SimulatorOptions.defaults()
                .withKvEvents(new SimulatorOptions.KvEvents(true, 16, "/no/such/tokenizer.json", 0, 10));

        assertThatThrownBy(() -> BackendSimulator.start(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kv tokenizer: no such file: /no/such/tokenizer.json");
    }

    @Test
    void startReplicas_kvPortsBeyond65535_areRejected() {
        SimulatorOptions options = SimulatorOptions.defaults()
                .withKvEvents(SimulatorOptions.KvEvents.on().withPort(65532));

        assertThatThrownBy(() -> BackendSimulator.startReplicas(3, options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kv events ports 65532 to 65537 exceed 65535");
    }
}
