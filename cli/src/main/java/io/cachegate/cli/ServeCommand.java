package io.cachegate.cli;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.gateway.Gateway;
import io.cachegate.gateway.StartRefusedException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cachegate serve}: runs the gateway until SIGTERM/SIGINT, then drains in-flight requests and exits 0. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the gateway. Without --config: the embedded default policy "
                + "(backend from CACHEGATE_BACKEND_URL, default http://127.0.0.1:8000).")
final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    @Option(names = "--config", paramLabel = "FILE", description = "The YAML policy file.")
    Path config;

    @Override
    public Integer call() throws Exception {
        Policy policy;
        try {
            policy = PolicySource.load(config);
        } catch (PolicyException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        Gateway gateway;
        try {
            gateway = config == null ? Gateway.start(policy) : Gateway.start(policy, config);
        } catch (StartRefusedException e) {
            System.err.println("cachegate: " + e.getMessage());
            return 2;
        }
        if (config != null) {
            Signals.onHangup(gateway::reload).hangupWarning().ifPresent(log::warn);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable stop = () -> {
            gateway.shutdown(policy.server().shutdownGrace());
            stopped.countDown();
        };
        // On the signal, so the drain ends before the JVM's exit and ONNX Runtime's own hook begin (Signals says
        // why); the hook covers any other exit.
        Signals.onStop(stop);
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "cachegate-shutdown"));
        System.out.printf("cachegate serving on %s://%s:%d/v1 (admin %s://%s:%d)%n",
                policy.server().tls().isPresent() ? "https" : "http", policy.server().host(), gateway.port(),
                policy.server().adminTls().isPresent() ? "https" : "http", policy.server().adminHost(),
                gateway.adminPort());
        stopped.await();
        return 0;
    }
}
