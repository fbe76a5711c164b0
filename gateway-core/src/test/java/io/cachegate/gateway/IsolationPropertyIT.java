package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.NettyLeakCheck;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Isolation as a property: 6,000 random operations through one gateway (exact and semantic caches on) —
 * requests from two tenants with keys holding different access labels, declaring label sets with
 * {@code X-Cache-Labels}, from different end users, with normal and sensitive prompts and paraphrases, streamed
 * or not; purges by user and by tenant; and policy reloads that take a label away from a key and give it back.
 *
 * <p>The oracle follows every answer to the request that generated it ({@code X-Cache-Origin-Request-Id}) and
 * counts a violation whenever an answer crosses a boundary: another tenant's; an entry with a label the
 * requester's key does not hold <em>now</em>; a sensitive prompt stored under {@code no_store} or served to
 * another end user under {@code private}; an entry written for a user or tenant before it was purged; or an
 * answer whose body is not its origin's. It also checks the refusals: a declared label the key does not hold is
 * 403, everything else 200.
 */
class IsolationPropertyIT {

    /**
     * 6,000 in CI (about 1,500 misses stored, 900 semantic and 1,100 exact hits, 60 reloads, 90 purges; 10,000 took
     * 100 s of a 2-core CI run with each buffer tracked); {@code -Disolation.operations=100000} for a longer run.
     */
    private static final int OPERATIONS = Integer.getInteger("isolation.operations", 6_000);
    private static final long SEED = 20261201L;

    private static final List<String> SYSTEMS = List.of("You answer HR questions.", "You answer finance questions.");
    /** Each topic in three wordings: the semantic cache matches them, the exact cache does not. */
    private static final List<List<String>> TOPICS = List.of(
            List.of("How do I reset my password?", "How can I reset my password?", "How do I change my password?"),
            List.of("How many vacation days do I get?", "How many days of vacation do I have?",
                    "What is my vacation allowance?"),
            List.of("When is payday this month?", "What day is payday this month?", "When do we get paid this month?"),
            List.of("How do I submit an expense report?", "How can I submit an expense report?",
                    "Where do I file an expense report?"),
            List.of("Who approves my travel request?", "Who needs to approve my travel request?",
                    "Who signs off on travel requests?"),
            List.of("How do I enroll in the pension plan?", "How can I join the pension plan?",
                    "How do I sign up for the pension plan?"),
            List.of("What is the parental leave policy?", "What does the parental leave policy say?",
                    "How long is parental leave?"),
            List.of("How do I update my bank details for salary?", "How can I change the bank account my salary goes to?",
                    "Where do I update my salary bank account?"));
    /**
     * Prompts the detector must catch: a Luhn-valid card number, an e-mail address, a secret key; also written in
     * fullwidth digits, with no-break spaces or a fullwidth at sign (issue 28).
     */
    private static final List<List<String>> SENSITIVE = List.of(
            List.of("My card 4111 1111 1111 1111 was declined, why?", "Why was my card 4111 1111 1111 1111 declined?",
                    "My card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 "
                            + "\uff11\uff11\uff11\uff11 was declined, why?",
                    "Why was my card 4111\u00a01111\u00a01111\u00a01111 declined?"),
            List.of("Please email the payslip to jane.doe@example.com", "Send my payslip to jane.doe@example.com please",
                    "Send my payslip to jane.doe\uff20example.com please"),
            List.of("Is this key still valid: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
                    "Can you check the key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"));

    /** Key -> tenant; every key's labels are in {@link #labels}, which reloads change. */
    private static final Map<String, String> TENANT_OF = new LinkedHashMap<>();
    private static final List<String> USERS = java.util.Arrays.asList(null, "u1", "u2", "u3");
    private static final String PRIVATE_MODEL = "qwen2.5-0.5b";
    private static final String NO_STORE_MODEL = "llama-3.1-8b";

    private static BackendSimulator sim;
    private static Gateway gateway;
    private static Path dir;
    private static Path policyFile;
    private static final Map<String, Set<String>> labels = new HashMap<>();

    static {
        TENANT_OF.put("acme-hr", "acme");
        TENANT_OF.put("acme-finance", "acme");
        TENANT_OF.put("acme-both", "acme");
        TENANT_OF.put("acme-plain", "acme");
        TENANT_OF.put("globex-hr", "globex");
        TENANT_OF.put("globex-plain", "globex");
    }

    /** What the oracle knows of the request that generated an answer. */
    private record Origin(int seq, String tenant, Set<String> declared, String user, String privateScope,
                          boolean sensitive, boolean stored, String content) {
    }

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        dir = Files.createTempDirectory("cachegate-isolation-it");
        policyFile = dir.resolve("policy.yaml");
        labels.put("acme-hr", Set.of("hr"));
        labels.put("acme-finance", Set.of("finance"));
        labels.put("acme-both", Set.of("hr", "finance"));
        labels.put("acme-plain", Set.of());
        labels.put("globex-hr", Set.of("hr"));
        labels.put("globex-plain", Set.of());
        writePolicy();
        gateway = Gateway.start(TestPolicies.parse(Files.readString(policyFile)), policyFile);
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, sim);
    }

    /**
     * The leak detector samples meanwhile: thousands of requests through the same few paths, each buffer tracked,
     * doubled the time (74 s against 37 s); every path here is also taken by a test that tracks each buffer.
     */
    @Test
    void randomOperations_neverServeAcrossATenantLabelOrUserBoundary() throws Exception {
        NettyLeakCheck.sampled(IsolationPropertyIT::randomOperations);
    }

    private static void randomOperations() throws Exception {
        Random random = new Random(SEED);
        List<String> keys = new ArrayList<>(TENANT_OF.keySet());
        Map<String, Origin> origins = new HashMap<>();
        Map<String, Integer> userPurgedAt = new HashMap<>();
        Map<String, Integer> tenantPurgedAt = new HashMap<>();
        List<String> violations = new ArrayList<>();
        Map<String, Integer> counts = new LinkedHashMap<>();

        for (int seq = 0; seq < OPERATIONS; seq++) {
            int op = random.nextInt(1000);
            if (op < 12) {
                String user = USERS.get(1 + random.nextInt(USERS.size() - 1));
                settleWrites();
                purge(gateway, "{\"user\":\"" + user + "\"}");
                userPurgedAt.put(user, seq);
                count(counts, "purge user");
                continue;
            }
            if (op < 15) {
                String tenant = random.nextBoolean() ? "acme" : "globex";
                settleWrites();
                purge(gateway, "{\"tenant\":\"" + tenant + "\"}");
                tenantPurgedAt.put(tenant, seq);
                count(counts, "purge tenant");
                continue;
            }
            if (op < 25) {
                reload(random);
                count(counts, "reload");
                continue;
            }
            String key = keys.get(random.nextInt(keys.size()));
            String tenant = TENANT_OF.get(key);
            Set<String> declared = declare(random);
            String user = USERS.get(random.nextInt(USERS.size()));
            boolean privateRoute = random.nextInt(3) == 0;
            boolean sensitive = random.nextInt(6) == 0;
            List<String> wordings = sensitive ? SENSITIVE.get(random.nextInt(SENSITIVE.size()))
                    : TOPICS.get(random.nextInt(TOPICS.size()));
            String question = wordings.get(random.nextInt(wordings.size()));
            String system = SYSTEMS.get(random.nextInt(SYSTEMS.size()));
            boolean stream = random.nextInt(8) == 0;

            HttpResponse<String> response = ask(key, privateRoute ? PRIVATE_MODEL : NO_STORE_MODEL, system, question,
                    user, declared, stream);
            String where = "op " + seq + " (" + key + " labels " + declared + " user " + user
                    + (privateRoute ? " private" : "") + (sensitive ? " sensitive" : "") + ")";
            if (!labels.get(key).containsAll(declared)) {
                if (response.statusCode() != 403) {
                    violations.add(where + ": declared a label the key lacks and got " + response.statusCode());
                }
                count(counts, "403");
                continue;
            }
            if (response.statusCode() != 200) {
                violations.add(where + ": status " + response.statusCode() + " " + response.body());
                continue;
            }
            String content = stream ? streamedContent(response.body()) : content(response.body());
            String xCache = xCache(response);
            boolean shared = "HIT".equals(xCache) || header(response, "X-Cache-Coalesced") != null;
            count(counts, shared ? "HIT " + header(response, "X-Cache-Layer") : xCache);
            if (sensitive && !privateRoute && !"BYPASS".equals(xCache)) {
                violations.add(where + ": a sensitive prompt under no_store was " + xCache);
            }
            String scope = user != null ? "user:" + user : "key:" + key;
            if (!shared) {
                origins.put(header(response, "X-Request-Id"), new Origin(seq, tenant, declared, user,
                        privateRoute && sensitive ? scope : null, sensitive, "MISS".equals(xCache), content));
                continue;
            }
            Origin origin = origins.get(header(response, "X-Cache-Origin-Request-Id"));
            if (origin == null) {
                violations.add(where + ": served an answer of unknown origin "
                        + header(response, "X-Cache-Origin-Request-Id"));
                continue;
            }
            String from = " from op " + origin.seq();
            if (!origin.stored()) {
                violations.add(where + ": served a bypassed answer" + from);
            }
            if (!origin.tenant().equals(tenant)) {
                violations.add(where + ": served tenant " + origin.tenant() + "'s answer" + from);
            }
            if (!labels.get(key).containsAll(origin.declared())) {
                violations.add(where + ": served an entry labelled " + origin.declared() + " to a key holding "
                        + labels.get(key) + from);
            }
            if (origin.sensitive() && !scope.equals(origin.privateScope())) {
                violations.add(where + ": served a sensitive answer of " + origin.privateScope() + from);
            }
            if (sensitive && "semantic".equals(header(response, "X-Cache-Layer"))) {
                violations.add(where + ": a sensitive prompt was answered from the semantic index" + from);
            }
            if (origin.user() != null && userPurgedAt.getOrDefault(origin.user(), -1) > origin.seq()) {
                violations.add(where + ": served an entry of purged user " + origin.user() + from);
            }
            if (tenantPurgedAt.getOrDefault(origin.tenant(), -1) > origin.seq()) {
                violations.add(where + ": served an entry of purged tenant " + origin.tenant() + from);
            }
            if (!content.equals(origin.content())) {
                violations.add(where + ": body differs from its origin's" + from);
            }
        }

        System.out.printf("isolation property: %d operations, seed %d, %s, %d violations%n", OPERATIONS, SEED,
                counts, violations.size());
        assertThat(violations).as("serves across a tenant, label or user boundary").isEmpty();
        assertThat(counts.getOrDefault("HIT exact", 0)).as("exact hits exercised").isGreaterThan(500);
        assertThat(counts.getOrDefault("HIT semantic", 0)).as("semantic hits exercised").isGreaterThan(50);
        assertThat(counts.getOrDefault("BYPASS", 0)).as("sensitive prompts exercised").isGreaterThan(100);
        assertThat(counts.getOrDefault("403", 0)).as("undeclarable labels exercised").isGreaterThan(100);
        assertThat(counts.getOrDefault("reload", 0)).as("reloads exercised").isGreaterThan(20);
        assertThat(metric(gateway, "cachegate_cache_bypass_total", "reason=\"sensitive\"")).isPositive();
    }

    /** No label, one, or both: sometimes one the key does not hold. */
    private static Set<String> declare(Random random) {
        return switch (random.nextInt(6)) {
            case 0, 1, 2 -> Set.of();
            case 3 -> Set.of("hr");
            case 4 -> Set.of("finance");
            default -> Set.of("hr", "finance");
        };
    }

    /** Takes a label away from a key, or gives it back: the next request must see the change. */
    private static void reload(Random random) throws Exception {
        String key = random.nextBoolean() ? "acme-finance" : "globex-hr";
        Set<String> now = new TreeSet<>(labels.get(key));
        if (!now.remove("hr")) {
            now.add("hr");
        }
        labels.put(key, Set.copyOf(now));
        writePolicy();
        HttpResponse<String> reload = RawHttp.post(gateway.adminPort(), "/admin/reload", "");
        assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);
    }

    private static HttpResponse<String> ask(String key, String model, String system, String question, String user,
                                            Set<String> declared, boolean stream) throws Exception {
        String body = "{\"model\":\"" + model + "\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]"
                + (user == null ? "" : ",\"user\":" + quote(user)) + (stream ? ",\"stream\":true" : "") + "}";
        List<String> headers = new ArrayList<>(List.of("Authorization", "Bearer " + key));
        if (!declared.isEmpty()) {
            headers.add("X-Cache-Labels");
            headers.add(String.join(",", new TreeSet<>(declared)));
        }
        return RawHttp.post(gateway.port(), CHAT, body, headers.toArray(String[]::new));
    }

    /** Semantic write-backs run after the answer leaves: a purge counts only what is written. */
    private static void settleWrites() {
        assertThat(Poll.untilChecked(Duration.ofSeconds(20), () ->
                metric(gateway, "cachegate_semantic_writes_pending") == 0))
                .as("semantic writes settled").isTrue();
    }

    private static void writePolicy() throws Exception {
        StringBuilder tenants = new StringBuilder();
        for (String tenant : List.of("acme", "globex")) {
            tenants.append("  - id: ").append(tenant).append("\n    api_keys:\n");
            TENANT_OF.forEach((key, owner) -> {
                if (owner.equals(tenant) && labels.get(key).isEmpty()) {
                    tenants.append("      - ").append(key).append('\n'); // a key without labels is a plain entry
                } else if (owner.equals(tenant)) {
                    tenants.append("      - {key: ").append(key).append(", labels: [")
                            .append(String.join(", ", new TreeSet<>(labels.get(key)))).append("]}\n");
                }
            });
        }
        String yaml = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                tenants:
                %scache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "%s", ttl: 1h, decision: cosine}
                routes:
                  - match: {model: "%s"}
                    cache: {semantic: true, threshold: 0.9, sensitive: private}
                  - match: {model: "*"}
                    cache: {semantic: true, threshold: 0.9, sensitive: no_store}
                """.formatted(sim.baseUrl(), tenants, dir.resolve("index").toString().replace('\\', '/'),
                PRIVATE_MODEL);
        Path tmp = Files.createTempFile(dir, "policy", ".tmp");
        Files.writeString(tmp, yaml);
        Files.move(tmp, policyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void count(Map<String, Integer> counts, String what) {
        counts.merge(what, 1, Integer::sum);
    }
}
