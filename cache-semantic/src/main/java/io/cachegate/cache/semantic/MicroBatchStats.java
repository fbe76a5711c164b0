package io.cachegate.cache.semantic;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * Running totals of a {@link MicroBatchingEmbedder}, read by the gateway's metrics (as function counters
 * and gauges). Every count only grows; {@link #queued()} is the one gauge.
 */
public final class MicroBatchStats {

    private final LongAdder batches = new LongAdder();
    private final LongAdder texts = new LongAdder();
    private final LongAdder rejections = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicLongArray batchSizes;
    private final IntSupplier queued;

    MicroBatchStats(int maxBatch, IntSupplier queued) {
        this.batchSizes = new AtomicLongArray(maxBatch + 1);
        this.queued = queued;
    }

    void batch(int size) {
        batches.increment();
        texts.add(size);
        batchSizes.incrementAndGet(size);
    }

    void rejected(int size) {
        rejections.add(size);
    }

    void failed(int size) {
        failures.add(size);
    }

    /** Model calls made (warm-up excluded). */
    public long batches() {
        return batches.sum();
    }

    /** Texts embedded, or attempted, by those calls. */
    public long texts() {
        return texts.sum();
    }

    /** Texts refused without a model call: queue full or embedder closed. */
    public long rejections() {
        return rejections.sum();
    }

    /** Texts whose model call failed. */
    public long failures() {
        return failures.sum();
    }

    /** Texts waiting for the model now. */
    public int queued() {
        return queued.getAsInt();
    }

    /** The largest batch size, the last index of {@link #batchesOfSize}. */
    public int maxBatch() {
        return batchSizes.length() - 1;
    }

    /** Model calls that carried exactly {@code size} texts: the source of a batch-size histogram. */
    public long batchesOfSize(int size) {
        return batchSizes.get(size);
    }

    @Override
    public String toString() {
        return "MicroBatchStats[batches=" + batches() + ", texts=" + texts() + ", rejections=" + rejections()
                + ", failures=" + failures() + ", queued=" + queued() + "]";
    }
}
