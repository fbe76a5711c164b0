package io.cachegate.cli;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import io.cachegate.config.Durations;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import io.cachegate.gateway.Gateway;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cachegate train-aot}: the training run of a JDK 25 AOT cache. It serves a workload through gateways in this
 * JVM — proxied requests with caching off; exact-cache misses, hits and streamed answers — from a simulator in this
 * JVM too, then stops them. Started with {@code -XX:AOTCacheOutput=FILE} ({@code ./cachegate train-aot} adds it), the
 * JVM writes at exit the classes it loaded and linked and the profiles its JIT gathered; a gateway started with
 * {@code -XX:AOTCache=FILE} then loads those classes ready-made and compiles its hot paths at once instead of
 * profiling them first. Without the option the run only exercises the gateway (a smoke test).
 */
@Command(name = "train-aot", mixinStandardHelpOptions = true,
        description = "Serve a training workload through in-process gateways and a simulator, for a JDK 25 AOT cache "
                + "(./cachegate train-aot writes cli/target/cachegate.aot; later launches start from it).")
final class TrainAotCommand implements Callable<Integer> {

    private static final String MODEL = "llama-3.1-8b";
    private static final String PATH = "/v1/chat/completions";

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", defaultValue = "30s",
            description = "Time the workload runs, split between its phases (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--connections", defaultValue = "16", description = "Connections of the load (default ${DEFAULT-VALUE}).")
    int connections;

    @Override
    public Integer call() throws Exception {
        Duration total;
        try {
            total = Durations.parse(duration);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--duration: " + e.getMessage());
        }
        List<String> aot = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:AOTCacheOutput=") || a.startsWith("-XX:AOTMode=")).toList();
        System.out.println(aot.isEmpty()
                ? "train-aot: no -XX:AOTCacheOutput given: the workload runs, no AOT cache is written"
                : "train-aot: " + String.join(" ", aot) + " (written when this JVM exits)");
        Duration phase = total.dividedBy(3);
        long requests = 0;
        long errors = 0;
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(0).withTpotMs(0))) {
            Gateway proxy = Gateway.start(policy(sim.baseUrl(), false));
            Gateway cached = Gateway.start(policy(sim.baseUrl(), true));
            try {
                List<BenchReport> reports = new ArrayList<>();
                // Proxying, then misses turning into hits (plain and streamed), then proxying again: what a gateway
                // with and without its cache does most, so its JIT profiles both.
                reports.add(load(proxy, bodies(1, false), phase.dividedBy(2)));
                reports.add(load(cached, bodies(2_000, true), phase));
                reports.add(load(cached, bodies(2_000, false), phase));
                reports.add(load(proxy, bodies(1, false), phase.dividedBy(2)));
                for (BenchReport r : reports) {
                    requests += r.requests();
                    errors += r.errors();
                }
            } finally {
                cached.shutdown(Duration.ofSeconds(2));
                proxy.shutdown(Duration.ofSeconds(2));
            }
        }
        System.out.printf(Locale.ROOT, "train-aot: %d requests, %d errors%n", requests, errors);
        return errors > requests / 100 ? 1 : 0;
    }

    private BenchReport load(Gateway gateway, RequestSource source, Duration length) throws InterruptedException {
        return LoadGenerator.run(BenchOptions.builder(URI.create("http://127.0.0.1:" + gateway.port()), source)
                .closedLoop(connections).duration(length).warmup(Duration.ZERO)
                .requestTimeout(Duration.ofSeconds(10)).build());
    }

    /** {@code distinct} chat requests in turn; every second one streamed when {@code streamSome}. */
    static RequestSource bodies(int distinct, boolean streamSome) {
        BenchRequest[] all = new BenchRequest[distinct];
        for (int i = 0; i < distinct; i++) {
            boolean stream = streamSome && i % 2 == 1;
            String body = "{\"model\":\"" + MODEL + "\",\"temperature\":0," + (stream ? "\"stream\":true," : "")
                    + "\"messages\":[{\"role\":\"system\",\"content\":\"You are a concise assistant.\"},"
                    + "{\"role\":\"user\",\"content\":\"Training question number " + i + ": explain it briefly.\"}]}";
            all[i] = BenchRequest.post(PATH, body.getBytes(StandardCharsets.UTF_8), stream);
        }
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }

    /** A gateway on a free port in front of the simulator, with the memory exact cache or with caching off. */
    static Policy policy(URI backend, boolean cache) throws Exception {
        String yaml = "server: { host: 127.0.0.1, port: 0, admin_port: 0, shutdown_grace: 1s }\n"
                + "log: { access: off }\n"
                + "backends:\n  - name: sim\n    urls: [\"" + backend + "\"]\n    max_concurrency: 256\n"
                + "cache:\n  exact:\n    store: memory\n"
                + "routes:\n  - match: { model: \"*\" }\n    backend: sim\n"
                + (cache ? "" : "    cache: { exact: false }\n");
        return PolicyLoader.withEnvironment(System::getenv).parse(yaml, "train-aot");
    }
}
