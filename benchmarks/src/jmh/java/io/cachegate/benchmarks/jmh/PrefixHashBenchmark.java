package io.cachegate.benchmarks.jmh;

import io.cachegate.routing.PrefixHashes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Prefix affinity's chained block hashes of a rendered prompt (what {@code ReplicaSet.prefixHashes} computes
 * once per request before admission), at the default 256-character blocks and at most 1024 of them.
 */
public class PrefixHashBenchmark extends JmhDefaults {

    private static final int BLOCK_CHARS = 256;
    private static final int MAX_BLOCKS = 1024;

    @Param({"2048", "32768"})
    int promptChars;

    private String prompt;

    @Setup
    public void setUp() {
        prompt = Workloads.text(promptChars, 5);
    }

    @Benchmark
    public PrefixHashes prefixHashes() {
        return PrefixHashes.of(prompt, BLOCK_CHARS, MAX_BLOCKS);
    }
}
