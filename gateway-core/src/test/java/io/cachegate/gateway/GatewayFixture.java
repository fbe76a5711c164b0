package io.cachegate.gateway;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The set-up integration tests share: starts the simulators, renders {@link #BASE} merged with the test's own
 * policy sections, starts the gateway, hands out OpenAI SDK clients to it, and closes it all. On a {@code static}
 * field it lives for the test class, on an instance field for each test:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
 *         tenants:
 *           - {id: acme, api_keys: [acme-key]}
 *         """);
 * }</pre>
 *
 * <p>The test's YAML is merged into the base as {@link PolicySections} says (so
 * {@code backends: [{name: main, timeouts: ...}]} adjusts the base backend). The policy may refer to {@code ${SIM}} (the first simulator's URL),
 * {@code ${SIM_1}}, {@code ${SIM_2}}, … (each simulator's, from 1), {@code ${DIR}} (a fresh directory, deleted at
 * the end) and whatever {@link #env} adds. Tests that start their own backends in each test use
 * {@link #policyOn} or {@link #basePolicy} for the same base.
 */
final class GatewayFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** The model version {@link #BASE} pins backend {@code main} to. */
    static final String MODEL_VERSION = "llama@v1";

    /** What almost every test wants: both listeners on free loopback ports, one pinned backend on the simulator. */
    static final String BASE = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
            backends:
              - {name: main, urls: ["${SIM}"], model_version: "%s"}
            """.formatted(MODEL_VERSION);

    private final List<SimulatorOptions> simulatorOptions;
    private final Map<String, Supplier<String>> env = new LinkedHashMap<>();
    private String policy = "";
    private DirWriter prepare = dir -> { };
    private boolean watched;
    private final List<BackendSimulator> sims = new ArrayList<>();
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<Gateway> others = new ArrayList<>();
    private Path dir;
    private Gateway gateway;
    private final Map<String, OpenAIClient> clients = new LinkedHashMap<>();
    private boolean perTest;

    private GatewayFixture(List<SimulatorOptions> simulatorOptions) {
        this.simulatorOptions = simulatorOptions;
    }

    /** One simulator with default options as backend {@code main}. */
    static GatewayFixture withSimulator() {
        return withSimulators(SimulatorOptions.defaults());
    }

    /** One simulator with {@code options} as backend {@code main}. */
    static GatewayFixture withSimulator(SimulatorOptions options) {
        return withSimulators(options);
    }

    /** One simulator per options, in order ({@code ${SIM_1}}, {@code ${SIM_2}}, …); the first is {@code ${SIM}}. */
    static GatewayFixture withSimulators(SimulatorOptions... options) {
        return new GatewayFixture(List.of(options));
    }

    /** The test's own policy sections, merged into {@link #BASE}. */
    GatewayFixture policy(String yaml) {
        this.policy = yaml;
        return this;
    }

    /** One more {@code ${name}} for the policy, read when the gateway starts (a Redis URI, a certificate path). */
    GatewayFixture env(String name, Supplier<String> value) {
        env.put(name, value);
        return this;
    }

    /** Files the policy names (certificates, answer books), written into {@code ${DIR}} before anything starts. */
    GatewayFixture prepare(DirWriter write) {
        this.prepare = write;
        return this;
    }

    /**
     * The gateway reads its policy from {@link #policyFile()} and watches it, so a test can {@link #rewrite} it;
     * the file holds the policy with every {@code ${...}} already expanded, as a deployment's would.
     */
    GatewayFixture watched() {
        this.watched = true;
        return this;
    }

    /**
     * For a test that starts its own backends in each test: {@link #BASE} on the simulator at {@code sim} merged
     * with {@code sections}, parsed.
     */
    static Policy policyOn(URI sim, String sections) {
        return parse(PolicySections.render(BASE, sections), Map.of("SIM", sim.toString()));
    }

    /** As {@link #policyOn}, where {@code sections} give backend {@code main} its urls. */
    static Policy basePolicy(String sections) {
        return parse(PolicySections.render(BASE, sections), Map.of());
    }

    Gateway gateway() {
        return started(gateway);
    }

    /** The first simulator. */
    BackendSimulator sim() {
        return sim(1);
    }

    /** Simulator {@code n}, counted from 1 as in {@code ${SIM_n}}. */
    BackendSimulator sim(int n) {
        return started(sims.get(n - 1));
    }

    /** The directory {@code ${DIR}} names. */
    Path dir() {
        return started(dir);
    }

    /** The OpenAI SDK on the gateway with {@code apiKey}, made on first use and closed with the fixture. */
    OpenAIClient sdk(String apiKey) {
        String base = "http://127.0.0.1:" + port() + "/v1";
        return clients.computeIfAbsent(apiKey + " " + base, k -> client(base, apiKey));
    }

    /** The OpenAI SDK on the first simulator, around the gateway: what a client would get without it. */
    OpenAIClient sdkDirect() {
        String base = sim().baseUrl() + "/v1";
        return clients.computeIfAbsent("x " + base, k -> client(base, "x"));
    }

    private static OpenAIClient client(String baseUrl, String apiKey) {
        return OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey(apiKey).maxRetries(0).build();
    }

    Path policyFile() {
        return dir().resolve("policy.yaml");
    }

    /** Swaps the watched policy file for the base merged with {@code sections}, whole, as a ConfigMap update does. */
    void rewrite(String sections) throws IOException {
        Path tmp = Files.createTempFile(dir(), "policy", ".tmp");
        Files.writeString(tmp, policyText(sections));
        Files.move(tmp, policyFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The base merged with {@code sections}, every {@code ${...}} expanded: the text a policy file would hold. */
    String policyText(String sections) {
        started(dir);
        return expand(PolicySections.render(BASE, sections));
    }

    /** One more gateway on the same simulators with the base merged with {@code sections}; closed with the rest. */
    Gateway startAnother(String sections) throws InterruptedException {
        Gateway another = Gateway.start(parse(PolicySections.render(BASE, sections)));
        others.add(another);
        return another;
    }

    int port() {
        return gateway().port();
    }

    int adminPort() {
        return gateway().adminPort();
    }

    /** The policy text the gateway was started with: the base and the test's sections merged, not yet expanded. */
    String renderedPolicy() {
        return PolicySections.render(BASE, policy);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (gateway == null) {
            perTest = true;
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (perTest) {
            close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    private void start() throws Exception {
        dir = Files.createTempDirectory("cachegate-it");
        prepare.write(dir);
        values.put("DIR", dir.toString().replace('\\', '/'));
        for (SimulatorOptions options : simulatorOptions) {
            BackendSimulator sim = BackendSimulator.start(options);
            sims.add(sim);
            values.put("SIM_" + sims.size(), sim.baseUrl().toString());
        }
        values.put("SIM", values.get("SIM_1"));
        env.forEach((name, value) -> values.put(name, value.get()));
        if (watched) {
            rewrite(policy);
            gateway = Gateway.start(parse(Files.readString(policyFile())), policyFile());
        } else {
            gateway = Gateway.start(parse(renderedPolicy()));
        }
    }

    private Policy parse(String yaml) {
        return parse(yaml, values);
    }

    private static Policy parse(String yaml, Map<String, String> variables) {
        try {
            return PolicyLoader.withEnvironment(variables::get).parse(yaml, "fixture.yaml");
        } catch (PolicyException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + yaml, e);
        }
    }

    /** {@code yaml} with the fixture's variables in place (the gateway reloads a file with the process's). */
    private String expand(String yaml) {
        String out = yaml;
        for (Map.Entry<String, String> v : values.entrySet()) {
            out = out.replace("${" + v.getKey() + "}", v.getValue());
        }
        return out;
    }

    private void close() throws Exception {
        clients.values().forEach(OpenAIClient::close);
        clients.clear();
        List<AutoCloseable> all = new ArrayList<>(others);
        all.add(gateway);
        all.addAll(sims);
        gateway = null;
        others.clear();
        sims.clear();
        values.clear();
        Closing.all(all.toArray(AutoCloseable[]::new));
        if (dir != null) {
            delete(dir);
            dir = null;
        }
    }

    private static <T> T started(T value) {
        if (value == null) {
            throw new IllegalStateException("the fixture has not started: register it with @RegisterExtension");
        }
        return value;
    }

    private static void delete(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes files into the fixture's directory. */
    @FunctionalInterface
    interface DirWriter {
        void write(Path dir) throws Exception;
    }
}
