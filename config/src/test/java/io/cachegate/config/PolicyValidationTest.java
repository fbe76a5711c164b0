package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problem;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of problem, with the exact line, path and message a user sees. */
class PolicyValidationTest {

    @Test
    void parse_emptyDocument_needsABackend() {
        assertThat(problem("")).isEqualTo("policy.yaml:1: backends: at least one backend is required");
        assertThat(problem("{}")).isEqualTo("policy.yaml:1: backends: at least one backend is required");
        assertThat(problem("backends: []")).isEqualTo("policy.yaml:1: backends: at least one backend is required");
    }

    @Test
    void parse_invalidYaml_reportsLine() {
        assertThat(problem(BACKEND + "server: { port: 8080\n"))
                .startsWith("policy.yaml:5: invalid YAML: ");
    }

    @Test
    void parse_twoDocuments_isAProblem() {
        assertThat(problem(BACKEND + "---\nserver: {}\n"))
                .isEqualTo("policy.yaml:4: invalid YAML: a policy file holds one document; remove the second ---");
    }

    @Test
    void parse_rootNotAMapping() {
        assertThat(problem("- a\n- b\n")).isEqualTo("policy.yaml:1: expected a mapping (key: value), found a list");
    }

    @Test
    void parse_unknownKey_suggestsTheClosest() {
        assertThat(problem(BACKEND + "server:\n  prot: 80\n"))
                .isEqualTo("policy.yaml:5: server.prot: unknown key (did you mean port?)");
        assertThat(problem(BACKEND + "servers: {}\n"))
                .isEqualTo("policy.yaml:4: servers: unknown key (did you mean server?)");
        assertThat(problem(BACKEND + "zzz: 1\n")).isEqualTo("policy.yaml:4: zzz: unknown key");
    }

    @Test
    void parse_duplicateKey() {
        assertThat(problem(BACKEND + "server:\n  port: 1\n  port: 2\n"))
                .isEqualTo("policy.yaml:6: server.port: duplicate key (first defined on line 5)");
    }

    @Test
    void parse_wrongType() {
        assertThat(problem(BACKEND + "server: [8080]\n"))
                .isEqualTo("policy.yaml:4: server: expected a mapping (key: value), found a list");
        assertThat(problem(BACKEND + "server:\n  port: { x: 1 }\n"))
                .isEqualTo("policy.yaml:5: server.port: expected a single value, found a mapping");
        assertThat(problem("backends: { name: main }\n"))
                .isEqualTo("policy.yaml:1: backends: expected a list, found a mapping");
        assertThat(problem(BACKEND + "server: { port: eighty }\n"))
                .isEqualTo("policy.yaml:4: server.port: \"eighty\" is not a whole number");
        assertThat(problem(BACKEND + "cache: { semantic: { enabled: yes } }\n"))
                .isEqualTo("policy.yaml:4: cache.semantic.enabled: \"yes\" is not a boolean (true or false)");
        assertThat(problem(BACKEND + "cache: { exact: { store: disk } }\n"))
                .isEqualTo("policy.yaml:4: cache.exact.store: \"disk\" is not one of memory, redis, tiered");
    }

    @Test
    void parse_portOutOfRange() {
        assertThat(problem(BACKEND + "server:\n  admin_port: -1\n"))
                .isEqualTo("policy.yaml:5: server.admin_port: -1 is out of range 0..65535");
        assertThat(problem(BACKEND + "server:\n  port: 65536\n"))
                .isEqualTo("policy.yaml:5: server.port: 65536 is out of range 0..65535");
        assertThat(problem(BACKEND + "cache: { semantic: { qdrant: { port: 0 } } }\n"))
                .isEqualTo("policy.yaml:4: cache.semantic.qdrant.port: 0 is out of range 1..65535");
    }

    @Test
    void parse_budgetDelta_outsideItsRange_saysWhatItIs() {
        assertThat(problem(BACKEND + "cache: { semantic: { budget_delta: 0.7 } }\n"))
                .startsWith("policy.yaml:4: cache.semantic.budget_delta: 0.7 is not in [0, 0.5]: the chance that the "
                        + "error budget's bound fails");
    }

    @Test
    void parse_samePortTwice() {
        assertThat(problem(BACKEND + "server: { port: 9000, admin_port: 9000 }\n")).isEqualTo(
                "policy.yaml:4: server.admin_port: 9000 is the same as port; the admin API needs its own port");
    }

    @Test
    void parse_adminOnTheNetworkWithoutToken_isTheProblemServeWouldRefuse() throws Exception {
        String message = "policy.yaml:5: server.admin_host: 0.0.0.0 is not a loopback address and server.admin_token"
                + " is not set: anyone who can reach port 8081 could purge the cache and read its stats.";
        assertThat(problem(BACKEND + "server:\n  admin_host: 0.0.0.0\n")).startsWith(message);
        assertThat(problem(BACKEND + "server:\n  admin_host: 0.0.0.0\n  admin_token: \"  \"\n")).startsWith(message);
        assertThat(TestPolicies.parse(BACKEND + "server:\n  admin_host: 0.0.0.0\n  admin_token: s3cret\n")
                .server().adminHost()).isEqualTo("0.0.0.0");
        assertThat(TestPolicies.parse(BACKEND + "server:\n  admin_host: localhost\n").server().adminToken()).isEmpty();
    }

    @Test
    void parse_badSizes() {
        assertThat(problem(BACKEND + "server:\n  max_body_bytes: -4MiB\n"))
                .isEqualTo("policy.yaml:5: server.max_body_bytes: \"-4MiB\" is negative; sizes must be 0 or more");
        assertThat(problem(BACKEND + "server:\n  max_header_bytes: 3GiB\n"))
                .isEqualTo("policy.yaml:5: server.max_header_bytes: 3221225472 is out of range 1..2147483647");
        assertThat(problem(BACKEND + "server:\n  max_body_bytes: lots\n")).isEqualTo(
                "policy.yaml:5: server.max_body_bytes: \"lots\" is not a size (e.g. 512KiB, 4MiB, 10KB)");
    }

    @Test
    void parse_badDuration_quotesTheValue() {
        assertThat(problem(BACKEND + """
                routes:
                  - match: { model: a }
                  - match: { model: b }
                  - cache:
                      ttl: ten minutes
                """)).isEqualTo(
                "policy.yaml:8: routes[2].cache.ttl: \"ten minutes\" is not a duration (e.g. 500ms, 10m, 1h)");
        assertThat(problem(BACKEND + "server: { shutdown_grace: 30 }\n")).isEqualTo(
                "policy.yaml:4: server.shutdown_grace: \"30\" is not a duration (e.g. 500ms, 10m, 1h)");
        assertThat(problem(BACKEND + "cache: { exact: { ttl: 0s } }\n"))
                .isEqualTo("policy.yaml:4: cache.exact.ttl: \"0s\" must be longer than zero");
    }

    @Test
    void parse_backendUrls() {
        assertThat(problem("""
                backends:
                  - name: main
                    urls:
                      - http://ok:8000
                      - http://host:8000/v1
                """)).isEqualTo(
                "policy.yaml:5: backends[0].urls[1]: \"http://host:8000/v1\" must not have a path (the gateway appends /v1/...)");
        assertThat(problem("backends:\n  - { name: a, urls: [ftp://h] }\n")).isEqualTo(
                "policy.yaml:2: backends[0].urls[0]: \"ftp://h\" is not an http or https URL (e.g. http://127.0.0.1:8000)");
        assertThat(problem("backends:\n  - { name: a, urls: [\"http://\"] }\n"))
                .startsWith("policy.yaml:2: backends[0].urls[0]: \"http://\" is not");
        assertThat(problem("backends:\n  - { name: a, urls: [\"http://h?x=1\"] }\n"))
                .endsWith("must not have a query or fragment");
        assertThat(problem("backends:\n  - name: a\n    urls: []\n"))
                .isEqualTo("policy.yaml:3: backends[0].urls: at least one URL is required");
        assertThat(problem("backends:\n  - name: a\n"))
                .isEqualTo("policy.yaml:2: backends[0].urls: at least one URL is required");
    }

    @Test
    void parse_backendNameRequiredAndUnique() {
        assertThat(problem("backends:\n  - urls: [http://h]\n"))
                .isEqualTo("policy.yaml:2: backends[0].name: is required");
        assertThat(problem("""
                backends:
                  - { name: main, urls: [http://a] }
                  - { name: main, urls: [http://b] }
                """)).isEqualTo("policy.yaml:3: backends[1].name: \"main\" is already used by the backend on line 2");
    }

    @Test
    void parse_tenants() {
        assertThat(problem(BACKEND + """
                tenants:
                  - { id: acme, api_keys: [k1] }
                  - { id: acme, api_keys: [k2] }
                """)).isEqualTo("policy.yaml:6: tenants[1].id: \"acme\" is already used by the tenant on line 5");
        assertThat(problem(BACKEND + """
                tenants:
                  - { id: acme, api_keys: [k1] }
                  - id: globex
                    api_keys:
                      - k2
                      - k1
                """)).isEqualTo("policy.yaml:9: tenants[1].api_keys[1]: this API key is already used by tenant acme");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [] }\n"))
                .isEqualTo("policy.yaml:5: tenants[0].api_keys: at least one API key is required");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [\"\"] }\n"))
                .isEqualTo("policy.yaml:5: tenants[0].api_keys[0]: must not be empty");
    }

    @Test
    void parse_apiKeys_hashedOrWithLabels() {
        String hash = ApiKey.hash("k1");
        assertThat(problem(BACKEND + """
                tenants:
                  - { id: acme, api_keys: [k1] }
                  - { id: globex, api_keys: ["%s"] }
                """.formatted(hash)))
                .as("a plain key and its sha256: form are one key")
                .isEqualTo("policy.yaml:6: tenants[1].api_keys[0]: this API key is already used by tenant acme");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [\"sha256:abc\"] }\n"))
                .isEqualTo("policy.yaml:5: tenants[0].api_keys[0]: sha256: must be followed by 64 hex digits"
                        + " (cachegate hash-key prints it)");
        assertThat(problems(BACKEND + """
                tenants:
                  - id: acme
                    api_keys:
                      - { key: "%s", labels: [hr, "hr", "a b"] }
                      - { labels: [hr] }
                      - { key: k2, label: [hr] }
                """.formatted(hash))).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:7: tenants[0].api_keys[0].labels[1]: \"hr\" is listed twice",
                "policy.yaml:7: tenants[0].api_keys[0].labels[2]: \"a b\" is not a label: letters, digits, _ . -"
                        + " only (at most 64)",
                "policy.yaml:8: tenants[0].api_keys[1].key: required",
                "policy.yaml:9: tenants[0].api_keys[2].label: unknown key (did you mean labels?)");
    }

    @Test
    void parse_routeNames_uniqueAndNeverAnIndexLabel() {
        assertThat(problems(BACKEND + """
                routes:
                  - { name: chat, match: { model: "a*" } }
                  - { name: chat, match: { model: "b*" } }
                  - { name: "12", match: { model: "c*" } }
                  - { name: none, match: { model: "d*" } }
                  - { name: "a b", match: { model: "e*" } }
                  - { match: { model: "*" } }
                """)).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:6: routes[1].name: \"chat\" is already the name of the route on line 5",
                "policy.yaml:7: routes[2].name: \"12\" is not a route name: 1 to 64 letters, digits, _ . or -,"
                        + " starting with a letter or digit, not all digits (an unnamed route's label) and not none",
                "policy.yaml:8: routes[3].name: \"none\" is not a route name: 1 to 64 letters, digits, _ . or -,"
                        + " starting with a letter or digit, not all digits (an unnamed route's label) and not none",
                "policy.yaml:9: routes[4].name: \"a b\" is not a route name: 1 to 64 letters, digits, _ . or -,"
                        + " starting with a letter or digit, not all digits (an unnamed route's label) and not none");
    }

    @Test
    void parse_plainKeys_loadWithAWarningThatNeverQuotesThem() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                tenants:
                  - id: acme
                    api_keys: [plain-secret, "%s", { key: other-secret, labels: [hr] }]
                """.formatted(ApiKey.hash("k2")));

        assertThat(policy.warnings()).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml: tenants[0].api_keys[0]: a plain API key; write its sha256: form instead"
                        + " (cachegate hash-key prints it)",
                "policy.yaml: tenants[0].api_keys[2]: a plain API key; write its sha256: form instead"
                        + " (cachegate hash-key prints it)");
        assertThat(policy.tenants().toString()).doesNotContain("secret").doesNotContain(ApiKey.hash("k2").substring(7));
    }

    @Test
    void parse_embedderModelFile_needsItsTokenizer() {
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    embedder:\n      model: /m/model.onnx\n"))
                .isEqualTo("policy.yaml:7: cache.semantic.embedder.model: \"/m/model.onnx\" is neither bundled nor"
                        + " a model file with embedder.tokenizer (the path of its tokenizer.json)");
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    model: minilm\n"))
                .startsWith("policy.yaml:6: cache.semantic.model: \"minilm\" is neither bundled nor a model file");
        assertThat(problem(BACKEND + "cache: { semantic: { embedder: { tokenizer: /t.json } } }\n"))
                .isEqualTo("policy.yaml:4: cache.semantic.embedder.tokenizer: is only for a model file;"
                        + " the bundled model brings its own tokenizer");
        assertThat(problem(BACKEND + "cache: { semantic: { embedder: { model: bundled-fp32, tokenizer: /t.json } } }\n"))
                .isEqualTo("policy.yaml:4: cache.semantic.embedder.tokenizer: is only for a model file;"
                        + " the bundled model brings its own tokenizer");
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    model: bundled\n    embedder: { model: bundled }\n"))
                .isEqualTo("policy.yaml:6: cache.semantic.model: set both here and as embedder.model;"
                        + " keep embedder.model");
    }

    @Test
    void parse_embedderValuesOutOfRange() {
        String semantic = BACKEND + "cache:\n  semantic:\n    embedder:\n";
        assertThat(problem(semantic + "      pooling: max\n"))
                .isEqualTo("policy.yaml:7: cache.semantic.embedder.pooling: \"max\" is not one of cls, mean");
        assertThat(problem(semantic + "      max_batch: 0\n"))
                .isEqualTo("policy.yaml:7: cache.semantic.embedder.max_batch: 0 is out of range 1..4096");
        assertThat(problem(semantic + "      inter_op_threads: 0\n"))
                .isEqualTo("policy.yaml:7: cache.semantic.embedder.inter_op_threads: 0 is out of range 1..1024");
        assertThat(problem(semantic + "      max_wait: 2s\n")).startsWith(
                "policy.yaml:7: cache.semantic.embedder.max_wait: \"2s\" is longer than 1s;");
        assertThat(problem(semantic + "      max_wait: soon\n"))
                .startsWith("policy.yaml:7: cache.semantic.embedder.max_wait: \"soon\" is not a duration");
        assertThat(problem(semantic + "      max_batchs: 8\n"))
                .isEqualTo("policy.yaml:7: cache.semantic.embedder.max_batchs: unknown key (did you mean max_batch?)");
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    max_entries: 0\n"))
                .isEqualTo("policy.yaml:6: cache.semantic.max_entries: 0 is out of range 1..1000000000");
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    sweep_interval: 0s\n"))
                .isEqualTo("policy.yaml:6: cache.semantic.sweep_interval: \"0s\" must be longer than zero");
    }

    @Test
    void parse_routeTokenizerMustBeAReadableFile() throws Exception {
        assertThat(problem(BACKEND + "routes:\n  - tokenizer: /no/such/tokenizer.json\n"))
                .contains("routes[0].tokenizer: \"/no/such/tokenizer.json\" is not a readable file");
        java.nio.file.Path file = java.nio.file.Files.createTempFile("tokenizer", ".json");
        try {
            assertThat(TestPolicies.parse(BACKEND + "routes:\n  - tokenizer: " + file + "\n").routes().get(0).tokenizer())
                    .contains(file.toString());
        } finally {
            java.nio.file.Files.delete(file);
        }
    }

    @Test
    void parse_unknownDecisionOrRouteThreshold() {
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    decision: cosin\n"))
                .isEqualTo("policy.yaml:6: cache.semantic.decision: \"cosin\" is not one of learned, guarded, cosine"
                        + " (did you mean cosine?)");
        assertThat(problem(BACKEND + "routes:\n  - cache: { semantic: true, threshold: 2 }\n"))
                .contains("routes[0].cache.threshold: 2.0 is outside (0, 1]");
        assertThat(problem(BACKEND + "routes:\n  - cache: { exact: false, semantic: true }\n"))
                .contains("routes[0].cache.semantic: needs exact: true");
    }

    @Test
    void parse_thresholdOutsideRange() throws PolicyException {
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    threshold: 1.5\n"))
                .isEqualTo("policy.yaml:6: cache.semantic.threshold: 1.5 is outside (0, 1]; similarity 1 means identical");
        assertThat(problem(BACKEND + "cache:\n  semantic:\n    threshold: 0\n"))
                .startsWith("policy.yaml:6: cache.semantic.threshold: 0.0 is outside (0, 1]");
        assertThat(TestPolicies.parse(BACKEND + "cache:\n  semantic:\n    threshold: 1\n").cache().semantic()
                .threshold()).isEqualTo(1.0);
    }

    @Test
    void parse_routeReferencesMustExist() {
        String tenants = "tenants:\n  - { id: acme, api_keys: [k] }\n";
        assertThat(problem(BACKEND + "routes:\n  - backend: mian\n"))
                .isEqualTo("policy.yaml:5: routes[0].backend: no backend named \"mian\" (did you mean main?)");
        assertThat(problem(BACKEND + "routes:\n  - fallback: other\n"))
                .isEqualTo("policy.yaml:5: routes[0].fallback: no backend named \"other\"");
        assertThat(problem(BACKEND + "routes:\n  - class: batch\n"))
                .isEqualTo("policy.yaml:5: routes[0].class: no class named \"batch\"");
        assertThat(problem(BACKEND + tenants + "routes:\n  - match: { tenant: acmee }\n"))
                .isEqualTo("policy.yaml:7: routes[0].match.tenant: no tenant named \"acmee\" (did you mean acme?)");
        assertThat(problem(BACKEND + "routes:\n  - { backend: main, fallback: main }\n"))
                .isEqualTo("policy.yaml:5: routes[0].fallback: \"main\" is the route's own backend");
        assertThat(problem(BACKEND + "routes: []\n")).isEqualTo(
                "policy.yaml:4: routes: at least one route is required (or leave routes out for a catch-all)");
    }

    @Test
    void parse_classes() {
        assertThat(problem(BACKEND + "classes: {}\n")).isEqualTo(
                "policy.yaml:4: classes: at least one class is required (or leave classes out for the default)");
        assertThat(problem(BACKEND + "classes:\n  batch: { priority: -1 }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.priority: -1 is out of range 0..1000");
        assertThat(problem(BACKEND + "classes:\n  batch: { max_queue_tim: 1s }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.max_queue_tim: unknown key (did you mean max_queue_time?)");
    }

    @Test
    void parse_redisUri() {
        assertThat(problem(BACKEND + "cache: { exact: { redis_uri: \"http://x\" } }\n")).isEqualTo(
                "policy.yaml:4: cache.exact.redis_uri: \"http://x\" is not a Redis URI (e.g. redis://127.0.0.1:6379,"
                        + " redis-sentinel://h1:26379,h2:26379#mymaster, redis-cluster://h1:7000,h2:7000)");
    }

    @Test
    void parse_redisUri_sentinelAndClusterAccepted() throws PolicyException {
        for (String uri : List.of("redis-sentinel://h1:26379,h2:26379/0#mymaster", "redis-cluster://h1:7000,h2:7001",
                "rediss://:secret@cache:6380/2")) {
            Policy policy = TestPolicies.parse(BACKEND + "cache: { exact: { store: tiered, redis_uri: \"" + uri + "\" } }\n");
            assertThat(policy.cache().exact().redisUri()).isEqualTo(uri);
            assertThat(policy.cache().exact().store()).isEqualTo(ExactStore.TIERED);
        }
    }

    @Test
    void parse_exactStoreBounds() {
        assertThat(problem(BACKEND + "cache: { exact: { redis_queue_size: 0 } }\n"))
                .isEqualTo("policy.yaml:4: cache.exact.redis_queue_size: 0 is out of range 1..1000000");
        assertThat(problem(BACKEND + "cache: { exact: { timeout: 0ms } }\n"))
                .isEqualTo("policy.yaml:4: cache.exact.timeout: \"0ms\" must be longer than zero");
        assertThat(problem(BACKEND + "cache: { exact: { max_entries: 10 } }\n"))
                .startsWith("policy.yaml:4: cache.exact.max_entries: unknown key");
    }

    @Test
    void parse_storeHealth_defaultsAndBounds() throws PolicyException {
        StoreHealthSettings health = TestPolicies.parse(BACKEND
                + "cache: { exact: { store: redis, health: { window: 100, probes: 5, open_for: 500ms } } }\n")
                .cache().exact().health();
        assertThat(health.window()).isEqualTo(100);
        assertThat(health.minCalls()).isEqualTo(20);
        assertThat(health.probes()).isEqualTo(5);
        assertThat(health.openFor()).isEqualTo(Duration.ofMillis(500));
        assertThat(health.timeoutMultiple()).isEqualTo(4);

        assertThat(problem(BACKEND + "cache: { exact: { health: { window: 10, min_calls: 11 } } }\n")).isEqualTo(
                "policy.yaml:4: cache.exact.health.min_calls: 11 is more than window (10): the window never holds"
                        + " that many operations");
        assertThat(problem(BACKEND + "cache: { exact: { timeout: 100ms, health: { timeout_max: 80ms } } }\n"))
                .isEqualTo("policy.yaml:4: cache.exact.health.timeout_max: 80ms is less than cache.exact.timeout"
                        + " (100ms), the least timeout");
        assertThat(problem(BACKEND + "cache: { exact: { health: { failure_rate: 50 } } }\n")).isEqualTo(
                "policy.yaml:4: cache.exact.health.failure_rate: 50.0 is not a share in (0, 1] (e.g. 0.5)");
    }

    @Test
    void parse_severalProblems_reportedTogetherInFileOrder() {
        List<PolicyProblem> problems = problems("""
                server:
                  port: 99999
                  prot: 1
                backends:
                  - name: main
                    urls: [http://h/api]
                  - name: main
                    urls: [http://h]
                routes:
                  - backend: nope
                    cache: { ttl: soon }
                """);

        assertThat(problems).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:2: server.port: 99999 is out of range 0..65535",
                "policy.yaml:3: server.prot: unknown key (did you mean port?)",
                "policy.yaml:6: backends[0].urls[0]: \"http://h/api\" must not have a path (the gateway appends /v1/...)",
                "policy.yaml:7: backends[1].name: \"main\" is already used by the backend on line 5",
                "policy.yaml:10: routes[0].backend: no backend named \"nope\"",
                "policy.yaml:11: routes[0].cache.ttl: \"soon\" is not a duration (e.g. 500ms, 10m, 1h)");
        assertThat(problems.get(0)).isEqualTo(
                new PolicyProblem("policy.yaml", 2, "server.port", "99999 is out of range 0..65535"));
    }

    @Test
    void parse_badRouteCacheFlags_namesLineAndPath() {
        assertThat(problem(BACKEND + """
                routes:
                  - cache:
                      nondeterministic: sometimes
                """)).isEqualTo(
                "policy.yaml:6: routes[0].cache.nondeterministic: \"sometimes\" is not a boolean (true or false)");
        assertThat(problem(BACKEND + "routes:\n  - cache: { key_on_user: 1 }\n")).isEqualTo(
                "policy.yaml:5: routes[0].cache.key_on_user: \"1\" is not a boolean (true or false)");
    }

    @Test
    void parse_badStoreFinishReasons_eachItemWithItsLine() {
        assertThat(problems(BACKEND + """
                routes:
                  - cache:
                      store_finish_reasons:
                        - stop
                        - lenght
                        - cancelled
                        -
                """)).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:8: routes[0].cache.store_finish_reasons[1]: \"lenght\" is not one of stop, length, "
                        + "tool_calls, content_filter (did you mean length?)",
                "policy.yaml:9: routes[0].cache.store_finish_reasons[2]: \"cancelled\" is not one of stop, length, "
                        + "tool_calls, content_filter",
                "policy.yaml:10: routes[0].cache.store_finish_reasons[3]: must not be empty");
        assertThat(problem(BACKEND + "routes:\n  - cache: { store_finish_reasons: [] }\n")).isEqualTo(
                "policy.yaml:5: routes[0].cache.store_finish_reasons: must list at least one value (e.g. [stop])");
        assertThat(problem(BACKEND + "routes:\n  - cache: { store_finish_reasons: stop }\n")).isEqualTo(
                "policy.yaml:5: routes[0].cache.store_finish_reasons: expected a list, found \"stop\"");
    }

    @Test
    void exceptionMessage_isOneProblemPerLine() {
        String yaml = BACKEND + "server: { port: x, admin_port: y }\n";
        PolicyException e = new PolicyException(problems(yaml));

        assertThat(e.getMessage()).isEqualTo("""
                policy.yaml:4: server.port: "x" is not a whole number
                policy.yaml:4: server.admin_port: "y" is not a whole number""");
    }
}
