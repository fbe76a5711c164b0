package io.cachegate.benchmarks;

import java.net.URI;

/** A peer server started for a benchmark: where it listens, and its process (for the CPU it uses). */
record StartedServer(URI uri, ProcessHandle process) {
}
