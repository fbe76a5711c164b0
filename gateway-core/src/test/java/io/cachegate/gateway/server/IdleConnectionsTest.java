package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdleConnectionsTest {

    @Test
    void shedOne_closesTheLongestIdle_andNeverABusyOne() throws Exception {
        EmbeddedChannel busy = new EmbeddedChannel();
        EmbeddedChannel older = new EmbeddedChannel();
        EmbeddedChannel newer = new EmbeddedChannel();
        IdleConnections.idle(older);
        Thread.sleep(1); // nanoTime moves on: the marks differ
        IdleConnections.idle(newer);
        IdleConnections.idle(busy);
        IdleConnections.busy(busy); // a request came in

        assertThat(IdleConnections.shedOne(List.of(busy, newer, older), Duration.ZERO)).isTrue();
        assertThat(older.isOpen()).isFalse();
        assertThat(newer.isOpen()).isTrue();

        assertThat(IdleConnections.shedOne(List.of(busy, newer, older), Duration.ZERO)).isTrue();
        assertThat(newer.isOpen()).isFalse();
        assertThat(IdleConnections.shedOne(List.of(busy, newer, older), Duration.ZERO))
                .as("only a busy one left").isFalse();
        assertThat(busy.isOpen()).isTrue();
        busy.finishAndReleaseAll();
    }

    @Test
    void shedOne_idleForLessThanTheMinimum_isKept() {
        EmbeddedChannel fresh = new EmbeddedChannel();
        IdleConnections.idle(fresh);

        assertThat(IdleConnections.shedOne(List.of(fresh), Duration.ofMinutes(1))).isFalse();
        assertThat(fresh.isOpen()).isTrue();
        fresh.finishAndReleaseAll();
    }

    @Test
    void shedOne_looksAtABoundedSample() {
        List<Channel> channels = new ArrayList<>();
        for (int i = 0; i <= IdleConnections.EXAMINED; i++) {
            channels.add(new EmbeddedChannel());
        }
        IdleConnections.idle(channels.get(IdleConnections.EXAMINED)); // the only idle one, past the sample

        assertThat(IdleConnections.shedOne(channels, Duration.ZERO)).isFalse();
        channels.forEach(Channel::close);
    }
}
