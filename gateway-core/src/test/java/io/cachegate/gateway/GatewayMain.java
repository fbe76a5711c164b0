package io.cachegate.gateway;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs one gateway from a policy file in a JVM of its own, for tests that need gateways as separate processes (to
 * kill one, or to share nothing but the network): prints {@code ready <port> <admin port>} once it listens, and
 * closes on SIGTERM. The cli's {@code serve} adds only its command line around the same {@link Gateway#start}.
 */
public final class GatewayMain {

    private GatewayMain() {
    }

    public static void main(String[] args) throws Exception {
        Gateway gateway = Gateway.start(TestPolicies.parse(Files.readString(Path.of(args[0]))));
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close));
        System.out.println("ready " + gateway.port() + " " + gateway.adminPort());
        System.out.flush();
        Thread.currentThread().join();
    }
}
