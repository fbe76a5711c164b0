package io.cachegate.benchmarks;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Keeps loading a JVM target after its fixed warm-up until its JIT compiler is quiet: a slice at a time, until the
 * compiler threads used under {@link #QUIET_SHARE} of the process's CPU over one slice, or {@link #MAX_EXTRA} has
 * passed. A target without compiler threads (nginx, a peer on node) is left as it is. What the warm-up is for (the
 * hot paths compiled before anything is recorded) then holds on a loaded machine too, where the compiler gets less
 * of the cores and a fixed time ends with it still half done.
 */
final class JitWarmup {

    /** The share of a slice's CPU under which the compiler counts as done (it keeps a few percent for ever). */
    static final double QUIET_SHARE = 0.05;
    static final Duration SLICE = Duration.ofSeconds(2);
    static final Duration MAX_EXTRA = Duration.ofSeconds(60);

    /** Runs one unrecorded slice of load against the target. */
    @FunctionalInterface
    interface Load {
        void slice(Duration length) throws InterruptedException;
    }

    /** What the extra warm-up took: its length, and whether the compiler went quiet within {@link #MAX_EXTRA}. */
    record Outcome(Duration extra, boolean quiet, double lastShare) {

        String describe() {
            return quiet
                    ? String.format(Locale.ROOT, "+%ds until its JIT was quiet", extra.toSeconds())
                    : String.format(Locale.ROOT, "+%ds, its JIT still at %.0f%% of its CPU", extra.toSeconds(),
                            lastShare * 100);
        }
    }

    private JitWarmup() {
    }

    /** Warms {@code pid} with {@code load} until quiet; empty when the process has no JIT to wait for. */
    static Optional<Outcome> untilQuiet(long pid, Load load) throws InterruptedException {
        return untilQuiet(() -> JitActivity.sample(pid), load, SLICE, MAX_EXTRA);
    }

    /** As {@link #untilQuiet(long, Load)}, reading the process with {@code sampler}. */
    static Optional<Outcome> untilQuiet(Supplier<Optional<JitActivity.Sample>> sampler, Load load, Duration slice,
                                        Duration max) throws InterruptedException {
        Optional<JitActivity.Sample> first = sampler.get();
        if (first.isEmpty()) {
            return Optional.empty();
        }
        JitActivity.Sample before = first.get();
        Duration extra = Duration.ZERO;
        double share = 1;
        while (extra.compareTo(max) < 0) {
            load.slice(slice);
            extra = extra.plus(slice);
            Optional<JitActivity.Sample> after = sampler.get();
            if (after.isEmpty()) {
                break; // gone: the measurement that follows will say so
            }
            share = after.get().compilerShareSince(before);
            if (share < QUIET_SHARE) {
                return Optional.of(new Outcome(extra, true, share));
            }
            before = after.get();
        }
        return Optional.of(new Outcome(extra, false, share));
    }
}
