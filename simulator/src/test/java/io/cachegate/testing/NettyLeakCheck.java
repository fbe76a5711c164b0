package io.cachegate.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector (paranoid in tests, see the parent POM) reports a
 * leaked buffer. Registered for every test through the JUnit extension service file, so it must
 * install its detector factory before Netty's buffer classes initialise.
 */
public final class NettyLeakCheck implements AfterAllCallback {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // Leaks are reported when a collected, unreleased buffer is noticed on a later allocation.
        for (int i = 0; i < 3; i++) {
            System.gc();
            for (int j = 0; j < 64; j++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
                probe.release();
            }
        }
        if (!LEAKS.isEmpty()) {
            String report = String.join("\n\n", LEAKS);
            LEAKS.clear();
            throw new AssertionError("Netty reported leaked buffers in " + context.getDisplayName() + ":\n" + report);
        }
    }

    /** A test body that may throw. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with the detector sampling (as {@code SIMPLE} does: one buffer in 128, with a stack trace)
     * instead of tracking every buffer. For a test that moves megabytes in thousands of pieces, or thousands of
     * requests, through the same few paths, where tracking each cost many seconds (StreamingIT's 19 MB answer: 30 s
     * against 2); the rest of the suite stays paranoid. Not for a test of a rare path: sampled, a leak there could
     * go unseen.
     */
    public static void sampled(Body body) throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        try {
            body.run();
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    /** Visible for the leak check's own test. */
    public static List<String> leaks() {
        return LEAKS;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            return new RecordingDetector<>(resource, samplingInterval);
        }

        // Still abstract in Netty 4.2, so it must be implemented although deprecated.
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK " + resourceType + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK " + resourceType + " (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
