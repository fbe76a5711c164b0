package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a test's policy sections merge into a base policy. */
class PolicySectionsTest {

    private static final String BASE = """
            server: {port: 0, host: 127.0.0.1, shutdown_grace: 2s}
            backends:
              - {name: main, urls: ["${SIM}"], model_version: "llama@v1"}
            routes:
              - match: {model: "*"}
            """;

    @Test
    void render_mergesMapsKeyByKey_andAddsNewSections() {
        Map<String, Object> policy = rendered("""
                server: {max_body_bytes: 1MiB}
                tenants:
                  - {id: acme, api_keys: [acme-key]}
                """);

        assertThat(section(policy, "server")).containsEntry("port", "0").containsEntry("host", "127.0.0.1")
                .containsEntry("shutdown_grace", "2s").containsEntry("max_body_bytes", "1MiB");
        assertThat(policy.get("tenants")).isEqualTo(List.of(Map.of("id", "acme", "api_keys", List.of("acme-key"))));
    }

    @Test
    void render_namedListEntry_mergesIntoTheBaseEntryOfThatName_othersAreAppended() {
        Map<String, Object> policy = rendered("""
                backends:
                  - {name: main, timeouts: {first_byte: 5s}}
                  - {name: spare, urls: ["${SIM_2}"]}
                """);

        assertThat(policy.get("backends")).isEqualTo(List.of(
                Map.of("name", "main", "urls", List.of("${SIM}"), "model_version", "llama@v1",
                        "timeouts", Map.of("first_byte", "5s")),
                Map.of("name", "spare", "urls", List.of("${SIM_2}"))));
    }

    @Test
    void render_unnamedList_replacesTheBaseList() {
        Map<String, Object> policy = rendered("""
                routes:
                  - match: {path: /v1/completions}
                """);

        assertThat(policy.get("routes")).isEqualTo(List.of(Map.of("match", Map.of("path", "/v1/completions"))));
    }

    @Test
    void render_null_removesTheBaseKey() {
        Map<String, Object> policy = rendered("""
                backends:
                  - {name: main, model_version: null}
                """);

        assertThat(section(policy, "backends", 0)).doesNotContainKey("model_version").containsKey("urls");
    }

    @Test
    void render_keepsEveryScalarAsWritten() {
        // YAML 1.1 would read off as false and 0o10 as 8; the policy reader must see the text.
        Map<String, Object> policy = rendered("""
                log: {access: off}
                prices:
                  "*": {input: 1}
                server: {max_body_bytes: 010}
                backends:
                  - {name: main, model_version: "null"}
                """);

        assertThat(section(policy, "log")).containsEntry("access", "off");
        assertThat(section(policy, "prices")).containsKey("*");
        assertThat(section(policy, "server")).containsEntry("max_body_bytes", "010");
        assertThat(section(policy, "backends", 0)).as("quoted, null is a pin like any other")
                .containsEntry("model_version", "null");
    }

    private static Map<String, Object> rendered(String sections) {
        // Read back as the policy reader does, text only: a scalar the merge changed would show.
        return PolicySections.textOnlyYaml().load(PolicySections.render(BASE, sections));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, Object> policy, String key) {
        return (Map<String, Object>) policy.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, Object> policy, String key, int index) {
        return ((List<Map<String, Object>>) policy.get(key)).get(index);
    }
}
