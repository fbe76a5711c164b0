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
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The set-up integration tests share: starts the simulators, renders {@link #BASE} merged with the test's own
 * policy sections, starts the gateway, hands out OpenAI SDK clients to it, and closes it all. Registered on a {@code static} field it lives for the
 * test class, on an instance field for each test:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
 *         cache:
 *           exact: {store: memory, ttl: 1h}
 *         """);
 * }</pre>
 *
 * <p>The test's YAML is merged into the base, not appended: maps merge key by key, list entries with a
 * {@code name} merge into the base's entry of that name (so {@code backends: [{name: main, timeouts: ...}]} adjusts
 * the base backend), any other value replaces the base's, and {@code null} removes it (a key the base sets that the test must not have). The policy may refer to
 * {@code ${SIM}} (the first simulator's URL), {@code ${SIM_1}}, {@code ${SIM_2}}, … (each simulator's, from 1),
 * {@code ${DIR}} (a fresh directory, deleted at the end) and whatever {@link #env} adds.
 */
final class GatewayFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** What almost every test wants: both listeners on free loopback ports, one pinned backend on the simulator. */
    static final String BASE = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
            backends:
              - {name: main, urls: ["${SIM}"], model_version: "llama@v1"}
            """;

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
        return expand(render(BASE, sections));
    }

    /** One more gateway on the same simulators with the base merged with {@code sections}; closed with the rest. */
    Gateway startAnother(String sections) throws InterruptedException {
        Gateway another = Gateway.start(parse(render(BASE, sections)));
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
        return render(BASE, policy);
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
        try {
            return PolicyLoader.withEnvironment(values::get).parse(yaml, "fixture.yaml");
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

    /** {@code overlay} merged into {@code base} (see the class comment), as block-style YAML. */
    static String render(String base, String overlay) {
        Yaml yaml = textOnlyYaml();
        Map<String, Object> merged = yaml.load(base);
        Map<String, Object> sections = yaml.load(overlay);
        if (sections != null) {
            merged = mergeMaps(merged, sections);
        }
        return yaml.dump(merged);
    }

    /**
     * YAML that keeps every scalar the text it was, dumped in block style: the policy reader types values itself,
     * and a round trip through YAML 1.1's implicit types would turn {@code off} into {@code false}.
     */
    static Yaml textOnlyYaml() {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(options), options,
                new LoaderOptions(), new TextOnly());
    }

    /** Resolves no plain scalar to a number, boolean or null: all are strings. */
    private static final class TextOnly extends Resolver {
        @Override
        protected void addImplicitResolvers() {
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mergeMaps(Map<String, Object> base, Map<String, Object> overlay) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        overlay.forEach((key, value) -> {
            Object old = out.get(key);
            if ("null".equals(value) || "~".equals(value)) {
                out.remove(key);
            } else if (old instanceof Map && value instanceof Map) {
                out.put(key, mergeMaps((Map<String, Object>) old, (Map<String, Object>) value));
            } else if (old instanceof List && value instanceof List && named((List<Object>) value)) {
                out.put(key, mergeByName((List<Object>) old, (List<Object>) value));
            } else {
                out.put(key, value);
            }
        });
        return out;
    }

    /** Entries of {@code overlay} merge into the base entry of the same name; the others are appended. */
    @SuppressWarnings("unchecked")
    private static List<Object> mergeByName(List<Object> base, List<Object> overlay) {
        List<Object> out = new ArrayList<>(base);
        for (Object entry : overlay) {
            Map<String, Object> map = (Map<String, Object>) entry;
            int at = indexOfName(out, map.get("name"));
            if (at < 0) {
                out.add(map);
            } else {
                out.set(at, mergeMaps((Map<String, Object>) out.get(at), map));
            }
        }
        return out;
    }

    private static boolean named(List<Object> list) {
        return !list.isEmpty() && list.stream().allMatch(e -> e instanceof Map<?, ?> m && m.get("name") != null);
    }

    private static int indexOfName(List<Object> list, Object name) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) instanceof Map<?, ?> m && name.equals(m.get("name"))) {
                return i;
            }
        }
        return -1;
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
