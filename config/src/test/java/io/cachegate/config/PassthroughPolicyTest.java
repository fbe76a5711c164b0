package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.parse;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code server.passthrough}: the allow-list of other /v1 paths forwarded to the backend. */
class PassthroughPolicyTest {

    @Test
    void parse_absent_forwardsNothing() throws Exception {
        assertThat(parse(BACKEND).server().passthrough()).isEmpty();
        assertThat(ServerSettings.defaults().passthrough()).isEmpty();
    }

    @Test
    void parse_entries_pathAndUpperCaseMethods_postByDefault() throws Exception {
        ServerSettings server = parse(BACKEND + """
                server:
                  passthrough:
                    - {path: /v1/rerank}
                    - {path: /v1/responses, methods: [get, POST]}
                """).server();
        assertThat(server.passthrough()).containsExactly(
                new ServerSettings.Passthrough("/v1/rerank", Set.of("POST")),
                new ServerSettings.Passthrough("/v1/responses", Set.of("GET", "POST")));
        assertThat(server.passthroughFor("/v1/rerank").orElseThrow().allows("post")).isTrue();
        assertThat(server.passthroughFor("/v1/rerank").orElseThrow().allows("DELETE")).isFalse();
        assertThat(server.passthroughFor("/v1/files")).isEmpty();
    }

    @Test
    void parse_pathOutsideV1_isAProblem() {
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {path: /sim/stats}\n"))
                .isEqualTo("policy.yaml:6: server.passthrough[0].path: \"/sim/stats\" must be a path under /v1/");
    }

    @Test
    void parse_pathWithDotSegmentOrWildcard_isAProblem() {
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {path: /v1/../sim}\n"))
                .isEqualTo("policy.yaml:6: server.passthrough[0].path: \"/v1/../sim\" must be an exact path: "
                        + "no query, wildcard, percent-encoding or dot segment");
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {path: /v1/files/*}\n"))
                .contains("must be an exact path");
    }

    @Test
    void parse_missingPathOrBadMethod_isAProblem() {
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {methods: [POST]}\n"))
                .isEqualTo("policy.yaml:6: server.passthrough[0].path: is required");
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {path: /v1/rerank, methods: [\"PO ST\"]}\n"))
                .isEqualTo("policy.yaml:6: server.passthrough[0].methods: \"PO ST\" is not an HTTP method");
    }

    @Test
    void parse_samePathTwice_isAProblem() {
        assertThat(problem(BACKEND + "server:\n  passthrough:\n    - {path: /v1/rerank}\n    - {path: /v1/rerank}\n"))
                .isEqualTo("policy.yaml:7: server.passthrough[1].path: \"/v1/rerank\" is listed twice");
    }
}
