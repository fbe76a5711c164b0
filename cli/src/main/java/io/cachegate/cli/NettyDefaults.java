package io.cachegate.cli;

import java.util.Properties;

/**
 * Netty settings a production process wants and Netty's defaults do not give: its leak detector, left at its
 * default level, takes a stack trace of one buffer in 128 (and another when the buffer is released); at a proxy's
 * ten buffers a request that was 2.4% of a proxied request's CPU (docs/benchmarks.md). One in 4,096 still samples
 * dozens of buffers a second under load, so a leak is still reported, for 1/32 of the cost. A value the operator
 * set ({@code -Dio.netty.leakDetection.samplingInterval=…}, or a level such as {@code paranoid}, which tracks every
 * buffer) is kept; the tests run at {@code paranoid}.
 */
final class NettyDefaults {

    static final String SAMPLING_INTERVAL = "io.netty.leakDetection.samplingInterval";
    static final String PRODUCTION_SAMPLING_INTERVAL = "4096";

    private NettyDefaults() {
    }

    /** Sets what the operator left unset in {@code system}; before any Netty class has read its properties. */
    static void apply(Properties system) {
        if (system.getProperty(SAMPLING_INTERVAL) == null) {
            system.setProperty(SAMPLING_INTERVAL, PRODUCTION_SAMPLING_INTERVAL);
        }
    }
}
