package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problem;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Every problem the admission and routing settings can have, with the line, path and message a user sees. */
class AdmissionPolicyValidationTest {

    private static final String TWO_BACKENDS = """
            backends:
              - { name: main, urls: [http://h:1] }
              - { name: small, urls: [http://h:2], models: ["qwen*"] }
            """;

    @Test
    void parse_classShareOutsideRange() {
        assertThat(problem(BACKEND + "classes:\n  batch: { share: 1 }\n")).isEqualTo("policy.yaml:5: classes.batch"
                + ".share: 1 is outside [0, 1); it is the fraction of dispatches the class is guaranteed (0: strict"
                + " priority)");
        assertThat(problem(BACKEND + "classes:\n  batch: { share: -0.1 }\n"))
                .startsWith("policy.yaml:5: classes.batch.share: -0.1 is outside [0, 1)");
        assertThat(problem(BACKEND + "classes:\n  batch: { share: half }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.share: \"half\" is not a number");
    }

    @Test
    void parse_classMaxInflightShareOutsideRange() {
        assertThat(problem(BACKEND + "classes:\n  batch: { max_inflight_share: 0 }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.max_inflight_share: 0 is outside (0, 1]; it is the share of the"
                        + " backend's request capacity this class may hold at once");
        assertThat(problem(BACKEND + "classes:\n  batch: { max_inflight_share: 1.5 }\n"))
                .startsWith("policy.yaml:5: classes.batch.max_inflight_share: 1.5 is outside (0, 1]");
    }

    @Test
    void parse_classSharesAddingUpToOne_namesTheShareThatTipsIt() {
        assertThat(problem(BACKEND + """
                classes:
                  interactive: { share: 0.3 }
                  batch: { share: 0.5 }
                  bulk:
                    share: 0.2
                """)).isEqualTo("policy.yaml:8: classes.bulk.share: the shares of all classes add up to 1 with this"
                + " one; they must add up to less than 1 (the rest goes by priority)");
        assertThat(problem(BACKEND + "classes:\n  a: { share: 0.6 }\n  b: { share: 0.5 }\n"))
                .startsWith("policy.yaml:6: classes.b.share: the shares of all classes add up to 1.1 with this one");
    }

    @Test
    void parse_classQueueBoundsAndFlags() {
        assertThat(problem(BACKEND + "classes:\n  batch: { max_queue_tokens: 0 }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.max_queue_tokens: 0 is out of range 1..1000000000000");
        assertThat(problem(BACKEND + "classes:\n  batch: { pausable: maybe }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.pausable: \"maybe\" is not a boolean (true or false)");
        assertThat(problem(BACKEND + "classes:\n  batch: { may_degrade: 1 }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.may_degrade: \"1\" is not a boolean (true or false)");
        assertThat(problem(BACKEND + "classes:\n  batch: { pauseable: true }\n"))
                .isEqualTo("policy.yaml:5: classes.batch.pauseable: unknown key (did you mean pausable?)");
    }

    @Test
    void parse_tenantClasses_mustBeDeclared() {
        String classes = "classes:\n  interactive: {}\n  batch: {}\n";
        assertThat(problems(BACKEND + classes + """
                tenants:
                  - id: acme
                    api_keys: [k]
                    classes:
                      - interactive
                      - bach
                      - bulk
                      -
                """)).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:12: tenants[0].classes[1]: no class named \"bach\" (did you mean batch?)",
                "policy.yaml:13: tenants[0].classes[2]: no class named \"bulk\"",
                "policy.yaml:14: tenants[0].classes[3]: must not be empty");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [k], classes: [batch] }\n"))
                .as("without a classes section only interactive exists")
                .isEqualTo("policy.yaml:5: tenants[0].classes[0]: no class named \"batch\"");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [k], classes: [] }\n")).isEqualTo(
                "policy.yaml:5: tenants[0].classes: must list at least one class (or leave it out: every class)");
        assertThat(problem(BACKEND + "tenants:\n  - { id: acme, api_keys: [k], classes: interactive }\n"))
                .isEqualTo("policy.yaml:5: tenants[0].classes: expected a list, found \"interactive\"");
        assertThat(problem(BACKEND + classes + "tenants:\n  - { id: a, api_keys: [k], classes: [batch, batch] }\n"))
                .isEqualTo("policy.yaml:8: tenants[0].classes[1]: \"batch\" is listed twice");
        assertThat(problem(BACKEND + classes + "tenants:\n  - { id: a, api_keys: [k], classes: [\"*\", batch] }\n"))
                .isEqualTo("policy.yaml:8: tenants[0].classes: \"*\" already allows every class;"
                        + " list names or \"*\" alone");
    }

    @Test
    void parse_tenantDefaultClass_mustBeDeclaredAndAllowed() {
        String classes = "classes:\n  interactive: {}\n  batch: {}\n";
        assertThat(problem(BACKEND + classes + "tenants:\n  - { id: a, api_keys: [k], default_class: btach }\n"))
                .isEqualTo("policy.yaml:8: tenants[0].default_class: no class named \"btach\" (did you mean batch?)");
        assertThat(problem(BACKEND + classes + """
                tenants:
                  - id: a
                    api_keys: [k]
                    classes: [batch]
                    default_class: interactive
                """)).isEqualTo("policy.yaml:11: tenants[0].default_class: \"interactive\" is not among this"
                + " tenant's classes [batch]");
        assertThat(problem(BACKEND + "tenants:\n  - { id: a, api_keys: [k], default_clas: interactive }\n"))
                .isEqualTo("policy.yaml:5: tenants[0].default_clas: unknown key (did you mean default_class?)");
    }

    @Test
    void parse_backendBalance() {
        assertThat(problem(BACKEND + "    balance: prefix_afinity\n")).isEqualTo("policy.yaml:4: backends[0].balance:"
                + " \"prefix_afinity\" is not one of least_loaded, prefix_affinity, round_robin, kv_aware"
                + " (did you mean prefix_affinity?)");
        assertThat(problem(BACKEND + "    balance: random\n")).isEqualTo("policy.yaml:4: backends[0].balance:"
                + " \"random\" is not one of least_loaded, prefix_affinity, round_robin, kv_aware");
        assertThat(problem(BACKEND + "    balanse: round_robin\n"))
                .isEqualTo("policy.yaml:4: backends[0].balanse: unknown key (did you mean balance?)");
    }

    @Test
    void parse_backendCapacity() {
        assertThat(problem(BACKEND + "    max_inflight_tokens: 0\n"))
                .isEqualTo("policy.yaml:4: backends[0].max_inflight_tokens: 0 is out of range 1..1000000000000");
        assertThat(problem(BACKEND + "    max_concurrency: 0\n"))
                .isEqualTo("policy.yaml:4: backends[0].max_concurrency: 0 is out of range 1..1000000");
        assertThat(problem(BACKEND + "    max_concurrency: many\n"))
                .isEqualTo("policy.yaml:4: backends[0].max_concurrency: \"many\" is not a whole number or auto");
        assertThat(problem(BACKEND + "    metrics: yes\n"))
                .isEqualTo("policy.yaml:4: backends[0].metrics: \"yes\" is not a boolean (true or false)");
    }

    @Test
    void parse_backendHealth() {
        assertThat(problem(BACKEND + "    health: { path: health }\n")).isEqualTo("policy.yaml:4: backends[0].health"
                + ".path: \"health\" is not an absolute path without a query (e.g. /v1/models or /health)");
        assertThat(problem(BACKEND + "    health: { path: \"/health?full=1\" }\n"))
                .startsWith("policy.yaml:4: backends[0].health.path: \"/health?full=1\" is not an absolute path");
        assertThat(problem(BACKEND + "    health: { interval: 10ms }\n"))
                .isEqualTo("policy.yaml:4: backends[0].health.interval: \"10ms\" is out of range 100ms..1h");
        assertThat(problem(BACKEND + "    health: { interval: 0s }\n"))
                .isEqualTo("policy.yaml:4: backends[0].health.interval: \"0s\" must be longer than zero");
        assertThat(problem(BACKEND + "    health: { failures_to_eject: 0 }\n"))
                .isEqualTo("policy.yaml:4: backends[0].health.failures_to_eject: 0 is out of range 1..1000");
        assertThat(problem(BACKEND + "    health:\n      eject_for: forever\n"))
                .startsWith("policy.yaml:5: backends[0].health.eject_for: \"forever\" is not a duration");
        assertThat(problem(BACKEND + "    health: { failures_to_ejct: 3 }\n")).isEqualTo(
                "policy.yaml:4: backends[0].health.failures_to_ejct: unknown key (did you mean failures_to_eject?)");
    }

    @Test
    void parse_backendPrefixAffinity() {
        String affinity = BACKEND + "    balance: prefix_affinity\n    prefix_affinity:\n";
        assertThat(problem(affinity + "      load_factor: 0.5\n")).isEqualTo("policy.yaml:6: backends[0]"
                + ".prefix_affinity.load_factor: 0.5 is out of range 1..1000 (the replica holding the prefix is passed"
                + " over when its load is above this many times the others' mean)");
        assertThat(problem(affinity + "      block_chars: 0\n"))
                .isEqualTo("policy.yaml:6: backends[0].prefix_affinity.block_chars: 0 is out of range 1..1000000");
        assertThat(problem(affinity + "      max_blocks_per_replica: 0\n")).isEqualTo(
                "policy.yaml:6: backends[0].prefix_affinity.max_blocks_per_replica: 0 is out of range 1..100000000");
        assertThat(problem(affinity + "      max_block_per_replica: 10\n")).isEqualTo("policy.yaml:6: backends[0]"
                + ".prefix_affinity.max_block_per_replica: unknown key (did you mean max_blocks_per_replica?)");
    }

    @Test
    void parse_kvEvents() throws PolicyException {
        String kv = BACKEND + "    balance: kv_aware\n    kv_events: [tcp://127.0.0.1:5557]\n";
        KvEventsSettings parsed = TestPolicies.parse(kv + "    tokenizer: bundled\n    kv_replay: [none]\n")
                .backends().get(0).kvEvents();
        assertThat(parsed.publish()).containsExactly("tcp://127.0.0.1:5557");
        assertThat(parsed.replay()).containsExactly(java.util.Optional.empty());
        assertThat(parsed.tokenizer()).contains("bundled");
        assertThat(TestPolicies.parse(kv).backends().get(0).kvEvents().replay())
                .as("by convention the next port").containsExactly(java.util.Optional.of("tcp://127.0.0.1:5558"));
        assertThat(problem(BACKEND + "    kv_events: [tcp://127.0.0.1:5557]\n")).isEqualTo("policy.yaml:4:"
                + " backends[0].kv_events: kv_events, kv_replay, kv_siblings, tokenizer, chat_template and kv_aware are only used"
                + " with balance: kv_aware (balance is least_loaded)");
        assertThat(problem(BACKEND + "    balance: kv_aware\n    kv_events: [tcp://a:1, tcp://b:2]\n"))
                .endsWith("backends[0].kv_events: has 2 endpoints for 1 urls: give one per url, in the same order");
        assertThat(problem(BACKEND + "    balance: kv_aware\n    kv_events: [http://a:1]\n"))
                .contains("is not a ZeroMQ TCP endpoint");
        assertThat(problem(kv + "    kv_replay: [none, none]\n"))
                .contains("kv_replay: has 2 entries for 1 kv_events endpoints");
        assertThat(problem(kv + "    kv_aware: { cpu_weight: 2 }\n")).contains("is out of range 0..1");
        assertThat(TestPolicies.parse(kv + "    kv_siblings: [http://gw-2:9090/]\n").backends().get(0).kvEvents()
                .siblings()).containsExactly(java.net.URI.create("http://gw-2:9090"));
        assertThat(problem(kv + "    kv_siblings: [http://gw-2:9090/admin]\n")).contains("must not have a path");
    }

    @Test
    void parse_prefixAffinityWithAnotherBalance_isAProblem() {
        assertThat(problem(BACKEND + "    prefix_affinity: { block_chars: 64 }\n")).isEqualTo("policy.yaml:4:"
                + " backends[0].prefix_affinity: is only used with balance: prefix_affinity or kv_aware (balance is least_loaded)");
        assertThat(problem(BACKEND + "    balance: round_robin\n    prefix_affinity:\n      load_factor: 2\n"))
                .isEqualTo("policy.yaml:6: backends[0].prefix_affinity: is only used with balance: prefix_affinity"
                        + " or kv_aware (balance is round_robin)");
        assertThat(problem(BACKEND + "    balance: prefix\n    prefix_affinity: { block_chars: 64 }\n"))
                .as("a wrong balance is reported once, not again as a mismatch")
                .startsWith("policy.yaml:4: backends[0].balance: \"prefix\" is not one of");
    }

    @Test
    void parse_backendRetries() {
        assertThat(problem(BACKEND + "    retries: { max_attempts: 0 }\n"))
                .isEqualTo("policy.yaml:4: backends[0].retries.max_attempts: 0 is out of range 1..10");
        assertThat(problem(BACKEND + "    retries: { backoff: 1m }\n"))
                .isEqualTo("policy.yaml:4: backends[0].retries.backoff: \"1m\" is out of range 0s..10s");
        assertThat(problem(BACKEND + "    retries: { max_atempts: 3 }\n")).isEqualTo(
                "policy.yaml:4: backends[0].retries.max_atempts: unknown key (did you mean max_attempts?)");
    }

    @Test
    void parse_routeFallbackModel() {
        assertThat(problem(TWO_BACKENDS + "routes:\n  - { backend: main, fallback_model: qwen2.5-0.5b }\n"))
                .isEqualTo("policy.yaml:5: routes[0].fallback_model: needs fallback (the backend to send"
                        + " \"qwen2.5-0.5b\" to)");
        assertThat(problem(TWO_BACKENDS + "routes:\n  - backend: main\n    fallback: small\n"
                + "    fallback_model: llama-3.1-8b\n")).isEqualTo("policy.yaml:7: routes[0].fallback_model:"
                + " backend \"small\" does not serve \"llama-3.1-8b\" (its models: qwen*)");
        assertThat(problem(TWO_BACKENDS + "routes:\n  - { fallback: small, fallback_modle: qwen }\n"))
                .isEqualTo("policy.yaml:5: routes[0].fallback_modle: unknown key (did you mean fallback_model?)");
    }

    @Test
    void parse_routeDefaultMaxTokens() {
        assertThat(problem(BACKEND + "routes:\n  - default_max_tokens: 0\n"))
                .isEqualTo("policy.yaml:5: routes[0].default_max_tokens: 0 is out of range 1..10000000");
        assertThat(problem(BACKEND + "routes:\n  - default_max_tokens: lots\n"))
                .isEqualTo("policy.yaml:5: routes[0].default_max_tokens: \"lots\" is not a whole number");
    }

    @Test
    void parse_admissionValues() {
        assertThat(problem(BACKEND + "admission: { enabled: on }\n"))
                .isEqualTo("policy.yaml:4: admission.enabled: \"on\" is not a boolean (true or false)");
        assertThat(problem(BACKEND + "admission: { initial_drain_rate: 0 }\n"))
                .isEqualTo("policy.yaml:4: admission.initial_drain_rate: 0.0 is out of range (0, 1e9] tokens per second");
        assertThat(problem(BACKEND + "admission: { max_retry_after: 500ms }\n"))
                .isEqualTo("policy.yaml:4: admission.max_retry_after: \"500ms\" is out of range 1s..1h");
        assertThat(problem(BACKEND + "admission:\n  tick: 2s\n"))
                .isEqualTo("policy.yaml:5: admission.tick: \"2s\" is out of range 1ms..1s");
        assertThat(problem(BACKEND + "admission:\n  tick: 0ms\n"))
                .isEqualTo("policy.yaml:5: admission.tick: \"0ms\" must be longer than zero");
        assertThat(problem(BACKEND + "admission: { enable: true }\n"))
                .isEqualTo("policy.yaml:4: admission.enable: unknown key (did you mean enabled?)");
        assertThat(problem(BACKEND + "admision: { enabled: true }\n"))
                .isEqualTo("policy.yaml:4: admision: unknown key (did you mean admission?)");
    }

    @Test
    void parse_overloadExitNotBelowEnter_namesTheKeyWritten() {
        String overload = BACKEND + "admission:\n  overload:\n";
        assertThat(problem(overload + "    exit_queue_age: 2s\n")).isEqualTo("policy.yaml:6: admission.overload"
                + ".exit_queue_age: 2s must be below enter_queue_age (1s, the default) (hysteresis: overload ends"
                + " only well below where it starts)");
        assertThat(problem(overload + "    enter_queue_age: 100ms\n")).isEqualTo("policy.yaml:6: admission.overload"
                + ".enter_queue_age: 100ms must be above exit_queue_age (250ms, the default); lower exit_queue_age"
                + " too (hysteresis: overload ends only well below where it starts)");
        assertThat(problem(overload + "    enter_pending_tokens: 1000\n    exit_pending_tokens: 1000\n"))
                .isEqualTo("policy.yaml:7: admission.overload.exit_pending_tokens: 1000 must be below"
                        + " enter_pending_tokens (1000) (hysteresis: overload ends only well below where it starts)");
        assertThat(problem(overload + "    enter_pending_tokens: 10000\n")).startsWith("policy.yaml:6:"
                + " admission.overload.enter_pending_tokens: 10000 must be above exit_pending_tokens (50000, the"
                + " default)");
    }

    @Test
    void parse_overloadValues() {
        String overload = BACKEND + "admission:\n  overload:\n";
        assertThat(problem(overload + "    enter_queue_age: 0s\n"))
                .isEqualTo("policy.yaml:6: admission.overload.enter_queue_age: \"0s\" must be longer than zero");
        assertThat(problem(overload + "    exit_pending_tokens: -1\n"))
                .isEqualTo("policy.yaml:6: admission.overload.exit_pending_tokens: -1 is out of range 0..1000000000000");
        assertThat(problem(overload + "    enter_after: 2h\n"))
                .isEqualTo("policy.yaml:6: admission.overload.enter_after: \"2h\" is out of range 0s..1h");
        assertThat(problem(overload + "    exit_afer: 1s\n"))
                .isEqualTo("policy.yaml:6: admission.overload.exit_afer: unknown key (did you mean exit_after?)");
    }
}
