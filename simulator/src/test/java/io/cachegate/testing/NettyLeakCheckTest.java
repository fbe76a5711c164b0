package io.cachegate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The leak check itself: a dropped buffer is reported, and {@code sampled} gives the level back however it ends. */
class NettyLeakCheckTest {

    @AfterEach
    void forgetTheLeakMadeOnPurpose() {
        NettyLeakCheck.leaks().clear(); // else the check fails this class after its last test
    }

    @Test
    void aBufferDroppedUnreleased_isReported() {
        assertThat(ResourceLeakDetector.getLevel()).as("the POM runs tests paranoid")
                .isEqualTo(ResourceLeakDetector.Level.PARANOID);
        leakOne();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (NettyLeakCheck.leaks().isEmpty() && System.nanoTime() < deadline) {
            System.gc();
            PooledByteBufAllocator.DEFAULT.buffer(16).release(); // an allocation is when collected leaks are noticed
        }
        assertThat(NettyLeakCheck.leaks()).as("leak reported").isNotEmpty();
        assertThat(NettyLeakCheck.leaks().get(0)).startsWith("LEAK");
    }

    @Test
    void sampled_runsAtSimple_andGivesTheLevelBack_evenWhenTheBodyThrows() throws Exception {
        AtomicReference<ResourceLeakDetector.Level> inside = new AtomicReference<>();
        NettyLeakCheck.sampled(() -> inside.set(ResourceLeakDetector.getLevel()));
        assertThat(inside.get()).isEqualTo(ResourceLeakDetector.Level.SIMPLE);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);

        assertThatThrownBy(() -> NettyLeakCheck.sampled(() -> {
            throw new IllegalStateException("the body failed");
        })).hasMessage("the body failed");
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(16);
        leaked.writeByte(1); // never released; unreachable once this returns
    }
}
