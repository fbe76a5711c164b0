package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyLoaderTest {

    @TempDir
    Path dir;

    @Test
    void parse_minimalPolicy_appliesEveryDefault() throws PolicyException {
        Policy policy = TestPolicies.parse(TestPolicies.BACKEND);

        assertThat(policy.source()).isEqualTo("policy.yaml");
        assertThat(policy.server()).isEqualTo(ServerSettings.defaults());
        assertThat(policy.server().maxBodyBytes()).isEqualTo(4 * 1024 * 1024);
        assertThat(policy.server().json()).isEqualTo(new JsonLimits(64, 4_194_304, 100));
        Backend main = policy.backends().get(0);
        assertThat(main.urls()).containsExactly(URI.create("http://127.0.0.1:8000"));
        assertThat(main.models()).containsExactly("*");
        assertThat(main.maxConcurrency()).isEmpty(); // auto: found from measured latency
        assertThat(main.maxConnectionsPerUrl()).isEqualTo(64);
        assertThat(main.timeouts()).isEqualTo(new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(60),
                Duration.ofSeconds(30), Duration.ofMinutes(10)));
        assertThat(policy.tenants()).isEmpty();
        assertThat(policy.authRequired()).isFalse();
        assertThat(policy.classes()).containsExactly(
                Map.entry("interactive", new TrafficClass("interactive", 0, Duration.ofSeconds(2), 1000)));
        assertThat(policy.cache()).isEqualTo(CacheSettings.defaults());
        assertThat(policy.routes()).containsExactly(new Route(0, new RouteMatch("*", Optional.empty(), "*"),
                Optional.empty(), Optional.empty(), "interactive",
                RouteCache.defaults()));
    }

    @Test
    void parse_everySetting_isRead() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                server:
                  host: 127.0.0.1
                  port: 0
                  admin_port: 0
                  max_body_bytes: 1MiB
                  max_header_bytes: 8KiB
                  admin_token: secret
                  shutdown_grace: 5s
                  io_threads: 2
                  json: { max_depth: 10, max_string_length: 1000, max_number_length: 20 }
                backends:
                  - name: main
                    urls: ["https://llm.internal/", "http://10.0.0.2:8000"]
                    models: ["llama-*", qwen]
                    model_version: v7
                    max_concurrency: 8
                    max_connections_per_url: 4
                    timeouts: { connect: 1s, first_byte: 5s, idle: 3s, total: 1m }
                    api_key: upstream
                classes:
                  batch: { priority: 2, max_queue_time: 10m, max_queue_depth: 5 }
                  bulk: { priority: 3 }
                cache:
                  exact:
                    store: tiered
                    redis_uri: "rediss://cache:6380"
                    ttl: 2h
                    timeout: 20ms
                    max_bytes: 64MiB
                    l1_ttl: 2s
                    l1_max_bytes: 8MiB
                    compress_above: 1KiB
                    redis_queue_size: 500
                  semantic:
                    enabled: true
                    store: qdrant
                    threshold: 0.85
                    decision: cosine
                    neighbours: 8
                    embed_early: true
                    speculative_upstream: true
                    ttl: 1d
                    path: /var/lib/cachegate
                    qdrant: { host: qdrant, port: 6333, collection: answers, api_key: q, tls: true, timeout: 1s }
                    max_entries: 5000
                    sweep_interval: 30s
                    embedder:
                      model: /models/minilm.onnx
                      tokenizer: /models/tokenizer.json
                      pooling: mean
                      normalize: false
                      max_tokens: 256
                      max_batch: 16
                      max_wait: 0s
                      queue_size: 64
                      workers: 3
                      intra_op_threads: 3
                      inter_op_threads: 2
                routes:
                  - match: { model: "llama-*", path: "/v1/chat/*" }
                    cache: { exact: true, semantic: true, ttl: 10m, context: kb-7, normalize: case, shared: true,
                             nondeterministic: true, key_on_user: true, store_finish_reasons: [stop, length, tool_calls],
                             embed: all_user, semantic_max_turns: 3, threshold: 0.97 }
                """);

        assertThat(policy.server()).isEqualTo(new ServerSettings("127.0.0.1", 0, "127.0.0.1", 0, 1 << 20, 8192,
                Optional.of("secret"), Duration.ofSeconds(5), 2, new JsonLimits(10, 1000, 20)));
        assertThat(policy.backends()).containsExactly(new Backend("main",
                List.of(URI.create("https://llm.internal"), URI.create("http://10.0.0.2:8000")),
                List.of("llama-*", "qwen"), Optional.of("v7"), OptionalInt.of(8), 4,
                new Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(3),
                        Duration.ofMinutes(1)),
                Optional.of("upstream")));
        assertThat(policy.classes().keySet()).containsExactly("batch", "bulk");
        assertThat(policy.classes().get("bulk")).isEqualTo(new TrafficClass("bulk", 3, Duration.ofSeconds(2), 1000));
        assertThat(policy.cache()).isEqualTo(new CacheSettings(
                new ExactCacheSettings(ExactStore.TIERED, "rediss://cache:6380", Duration.ofHours(2),
                        Duration.ofMillis(20), 64L << 20, Duration.ofSeconds(2), 8L << 20, 1024, 500),
                new SemanticCacheSettings(true, SemanticStore.QDRANT, 0.85, "cosine", 0.01, 0.05, 8, Duration.ofDays(1), "/var/lib/cachegate",
                        new QdrantSettings("qdrant", 6333, "answers", Optional.of("q"), true, Duration.ofSeconds(1)), 5000, Duration.ofSeconds(30),
                        new SemanticCacheSettings.EmbedderSettings("/models/minilm.onnx",
                                Optional.of("/models/tokenizer.json"), SemanticCacheSettings.Pooling.MEAN, false, 256,
                                16, Duration.ZERO, 64, 3, 3, 2), AuditSettings.defaults(), true, true)));
        Route route = policy.routes().get(0);
        assertThat(route.match()).isEqualTo(new RouteMatch("llama-*", Optional.empty(), "/v1/chat/*"));
        assertThat(route.trafficClass()).as("no interactive class: the first one").isEqualTo("batch");
        assertThat(route.cache()).isEqualTo(new RouteCache(true, true, Optional.of(Duration.ofMinutes(10)),
                Optional.of("kb-7"), Normalize.CASE, true, true, true, Set.of("stop", "length", "tool_calls"),
                Embed.ALL_USER, 3, Optional.of(0.97)));
    }

    @Test
    void parse_yamlBooleanLookalikes_stayStrings() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                backends:
                  - name: no
                    urls: [http://h:1]
                    models: [no, on, 1.0]
                """);

        assertThat(policy.backends().get(0).name()).isEqualTo("no");
        assertThat(policy.backends().get(0).models()).containsExactly("no", "on", "1.0");
    }

    @Test
    void embeddedDefault_matchesTheDocumentedDefault() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(name -> null).embeddedDefault();

        assertThat(policy.server().port()).isEqualTo(8080);
        assertThat(policy.server().adminPort()).isEqualTo(8081);
        assertThat(policy.server().adminHost()).isEqualTo("127.0.0.1");
        assertThat(policy.backends()).singleElement().satisfies(backend -> {
            assertThat(backend.name()).isEqualTo("default");
            assertThat(backend.urls()).containsExactly(URI.create("http://127.0.0.1:8000"));
            assertThat(backend.models()).containsExactly("*");
        });
        assertThat(policy.authRequired()).isFalse();
        assertThat(policy.classes().keySet()).containsExactly("interactive", "batch");
        assertThat(policy.classes().get("batch").maxQueueTime()).isEqualTo(Duration.ofMinutes(10));
        assertThat(policy.cache().exact().store()).isEqualTo(ExactStore.MEMORY);
        assertThat(policy.cache().semantic().enabled()).isTrue();
        assertThat(policy.cache().semantic().store()).isEqualTo(SemanticStore.EMBEDDED);
        assertThat(policy.cache().semantic().path()).isEqualTo("./data");
        assertThat(policy.cache().semantic().threshold()).isEqualTo(0.92);
        assertThat(policy.routes()).singleElement().satisfies(route -> {
            assertThat(route.backend()).contains("default");
            assertThat(route.trafficClass()).isEqualTo("interactive");
            assertThat(route.cache().exact()).isTrue();
            assertThat(route.cache().semantic()).isTrue();
        });
    }

    @Test
    void embeddedDefault_backendUrlFromEnvironment() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(Map.of("CACHEGATE_BACKEND_URL", "http://gpu-1:9000")::get)
                .embeddedDefault();

        assertThat(policy.backends().get(0).urls()).containsExactly(URI.create("http://gpu-1:9000"));
    }

    @Test
    void example_parses() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(name -> null).resource(PolicyLoader.EXAMPLE_RESOURCE);

        assertThat(policy.backends()).extracting(Backend::name).containsExactly("main", "small");
        assertThat(policy.tenants()).extracting(Tenant::id).containsExactly("acme", "globex");
        assertThat(policy.tenantForApiKey("globex-next-key").map(Tenant::id)).contains("globex");
        assertThat(policy.tenantForApiKey("acme-dev-key").map(Tenant::id)).as("by its sha256: form").contains("acme");
        assertThat(policy.credential("acme-hr-dev-key").map(c -> c.key().labels())).contains(List.of("hr", "finance"));
        assertThat(policy.server().adminToken()).as("empty default means no token").isEmpty();
        assertThat(policy.routes()).hasSize(2);
        assertThat(policy.routes().get(0).fallbacks()).extracting(FallbackHop::backend).containsExactly("small");
        assertThat(policy.routes().get(0).cache().normalize()).isEqualTo(Normalize.WHITESPACE);
        assertThat(policy.routes().get(0).cache().storeFinishReasons()).containsExactly("stop");
        assertThat(policy.routes().get(0).cache().nondeterministic()).isFalse();
        assertThat(policy.cache().semantic().embedder())
                .as("the example writes out every default")
                .isEqualTo(SemanticCacheSettings.EmbedderSettings.defaults());
        assertThat(policy.cache().semantic().maxEntries()).isEqualTo(1_000_000);
        assertThat(policy.cache().semantic().sweepInterval()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void parse_semanticModel_isAnAliasOfEmbedderModel() throws PolicyException {
        SemanticCacheSettings semantic = TestPolicies.parse(TestPolicies.BACKEND + """
                cache:
                  semantic:
                    model: /m/model.onnx
                    embedder: { tokenizer: /m/tokenizer.json }
                """).cache().semantic();

        assertThat(semantic.embedder().model()).isEqualTo("/m/model.onnx");
        assertThat(semantic.model()).isEqualTo("/m/model.onnx");
        assertThat(semantic.embedder().tokenizer()).contains("/m/tokenizer.json");
        assertThat(TestPolicies.parse(TestPolicies.BACKEND + "cache: { semantic: { model: bundled } }\n")
                .cache().semantic().embedder()).isEqualTo(SemanticCacheSettings.EmbedderSettings.defaults());
    }

    @Test
    void parse_bundledFp32_batchesUnlessMaxBatchIsSet() throws PolicyException {
        SemanticCacheSettings.EmbedderSettings fp32 = TestPolicies.parse(TestPolicies.BACKEND
                + "cache: { semantic: { embedder: { model: bundled-fp32 } } }\n").cache().semantic().embedder();
        SemanticCacheSettings.EmbedderSettings oldSpelling = TestPolicies.parse(TestPolicies.BACKEND
                + "cache: { semantic: { model: bundled-fp32 } }\n").cache().semantic().embedder();
        SemanticCacheSettings.EmbedderSettings one = TestPolicies.parse(TestPolicies.BACKEND
                + "cache: { semantic: { embedder: { model: bundled-fp32, max_batch: 1 } } }\n").cache().semantic()
                .embedder();

        assertThat(fp32.bundled()).isTrue();
        assertThat(fp32.tokenizer()).isEmpty();
        assertThat(fp32.maxBatch()).isEqualTo(SemanticCacheSettings.EmbedderSettings.FP32_MAX_BATCH);
        assertThat(oldSpelling).isEqualTo(fp32);
        assertThat(one.maxBatch()).isEqualTo(1);
        assertThat(SemanticCacheSettings.EmbedderSettings.defaults().maxBatch()).isEqualTo(1);
    }

    @Test
    void load_readsFileAndNamesProblemsAfterIt() throws IOException, PolicyException {
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, TestPolicies.BACKEND);

        assertThat(PolicyLoader.withEnvironment(name -> null).load(file).source()).isEqualTo(file.toString());

        Files.writeString(file, TestPolicies.BACKEND + "server: { port: 70000 }\n");
        assertThatThrownBy(() -> PolicyLoader.withEnvironment(name -> null).load(file))
                .isInstanceOf(PolicyException.class)
                .hasMessage(file + ":4: server.port: 70000 is out of range 0..65535");
    }

    @Test
    void load_missingFile_isAClearProblem() {
        Path file = dir.resolve("nope.yaml");

        assertThatThrownBy(() -> PolicyLoader.withEnvironment(name -> null).load(file))
                .isInstanceOf(PolicyException.class)
                .hasMessage(file + ": file not found")
                .hasNoCause();
    }

    @Test
    void load_directory_isAClearProblem() {
        assertThatThrownBy(() -> PolicyLoader.withEnvironment(name -> null).load(dir))
                .isInstanceOf(PolicyException.class)
                .hasMessage(dir + ": is a directory, not a policy file");
    }

    @Test
    void load_notUtf8_isAClearProblem() throws IOException {
        Path file = dir.resolve("latin1.yaml");
        Files.write(file, (TestPolicies.BACKEND + "# caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1));

        assertThatThrownBy(() -> PolicyLoader.withEnvironment(name -> null).load(file))
                .isInstanceOf(PolicyException.class)
                .hasMessage(file + ": is not UTF-8 text");
    }

    @Test
    void load_fileOverTheSizeLimit_isRefusedUnparsed() throws IOException, PolicyException {
        // One long comment: valid YAML, and the shape that kept SnakeYAML's scanner busy for minutes at 20 MB.
        Path file = dir.resolve("big.yaml");
        String head = TestPolicies.BACKEND + "# ";
        Files.writeString(file, head + "x".repeat((1 << 20) + 1 - head.length()));
        assertThatThrownBy(() -> PolicyLoader.withEnvironment(name -> null).load(file))
                .isInstanceOf(PolicyException.class)
                .hasMessage(file + ": is larger than 1MiB, the most a policy file may be"
                        + " (CACHEGATE_POLICY_MAX_BYTES raises it)");

        PolicyLoader small = PolicyLoader.withEnvironment(Map.of("CACHEGATE_POLICY_MAX_BYTES", "4KiB")::get);
        Files.writeString(file, head + "x".repeat(4096 - head.length()));
        assertThat(small.load(file).backends()).as("exactly at the limit").hasSize(1);
        Files.writeString(file, "x", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> small.load(file)).hasMessageContaining("is larger than 4KiB");
    }

    @Test
    void withEnvironment_unusableSizeLimit_failsEveryLoadWithIt() throws IOException {
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, TestPolicies.BACKEND);

        assertThatThrownBy(() -> PolicyLoader.withEnvironment(Map.of("CACHEGATE_POLICY_MAX_BYTES", "lots")::get)
                .load(file)).hasMessageStartingWith("CACHEGATE_POLICY_MAX_BYTES: \"lots\" is not a size");
        assertThatThrownBy(() -> PolicyLoader.withEnvironment(Map.of("CACHEGATE_POLICY_MAX_BYTES", "1GiB")::get)
                .load(file)).hasMessage("CACHEGATE_POLICY_MAX_BYTES: 1GiB is out of range 1KiB..64MiB");
    }

    @Test
    void parse_byteOrderMark_isIgnored() throws PolicyException {
        assertThat(TestPolicies.parse("\uFEFF" + TestPolicies.BACKEND).backends()).hasSize(1);
    }
}
