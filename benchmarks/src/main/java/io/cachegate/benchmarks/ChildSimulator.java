package io.cachegate.benchmarks;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** A {@code cachegate simulate-backend} child with {@code replicas} replicas on consecutive ports from {@code port}. */
record ChildSimulator(Process process, int port, int replicas) {

    /** The first replica. */
    URI uri() {
        return uri(0);
    }

    URI uri(int replica) {
        return URI.create("http://127.0.0.1:" + (port + replica));
    }

    List<URI> uris() {
        List<URI> out = new ArrayList<>(replicas);
        for (int i = 0; i < replicas; i++) {
            out.add(uri(i));
        }
        return out;
    }

    /** Waits until every replica accepts connections. */
    ChildSimulator awaitReady() throws InterruptedException {
        for (int i = 0; i < replicas; i++) {
            LocalProcesses.awaitPort(port + i);
        }
        return this;
    }
}
