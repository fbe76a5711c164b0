package io.cachegate.benchmarks;

import java.time.Duration;
import java.util.stream.Stream;

/**
 * The CPU time (user and system) a serving process and its descendants (nginx's workers) have used so far, as the
 * operating system counts it. Taken before and after a phase and divided by its requests, it is the cost of a
 * request, which another process's load on the shared cores moves far less than the throughput.
 */
final class ServerCpu {

    private ServerCpu() {
    }

    /** The CPU time of {@code server} and its descendants; zero for those whose time cannot be read. */
    static Duration used(ProcessHandle server) {
        return Stream.concat(Stream.of(server), server.descendants())
                .map(p -> p.info().totalCpuDuration().orElse(Duration.ZERO))
                .reduce(Duration.ZERO, Duration::plus);
    }

    /** Microseconds of CPU a request between two readings; NaN without requests. */
    static double microsPerRequest(Duration before, Duration after, long requests) {
        return requests <= 0 ? Double.NaN : after.minus(before).toNanos() / 1000.0 / requests;
    }
}
