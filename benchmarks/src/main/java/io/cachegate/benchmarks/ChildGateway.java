package io.cachegate.benchmarks;

import java.net.URI;

/** A {@code cachegate serve} child: its name in the logs, the proxy and admin listeners, the process. */
record ChildGateway(String name, URI uri, URI admin, Process process) {

    /** Waits until the proxy and the admin listener accept connections. */
    ChildGateway awaitReady() throws InterruptedException {
        LocalProcesses.awaitPort(uri.getPort());
        LocalProcesses.awaitPort(admin.getPort());
        return this;
    }
}
