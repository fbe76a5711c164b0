package io.cachegate.config;

import static io.cachegate.config.TestPolicies.parse;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvSubstitutionTest {

    private static final String TENANT = """
            backends:
              - name: main
                urls: ["${BACKEND:-http://127.0.0.1:8000}"]
            tenants:
              - id: acme
                api_keys: ["${ACME_KEY}"]
            """;

    @Test
    void parse_variableSet_isSubstituted() throws PolicyException {
        Policy policy = parse(TENANT, Map.of("ACME_KEY", "sk-acme", "BACKEND", "http://gpu:9000"));

        assertThat(policy.tenants().get(0).apiKeys()).containsExactly(ApiKey.of("sk-acme"));
        assertThat(policy.backends().get(0).urls()).containsExactly(URI.create("http://gpu:9000"));
    }

    @Test
    void parse_variableUnset_usesDefault() throws PolicyException {
        Policy policy = parse(TENANT, Map.of("ACME_KEY", "sk-acme"));

        assertThat(policy.backends().get(0).urls()).containsExactly(URI.create("http://127.0.0.1:8000"));
    }

    @Test
    void parse_variableEmpty_usesDefaultLikeTheShell() throws PolicyException {
        Policy policy = parse(TENANT, Map.of("ACME_KEY", "k", "BACKEND", ""));

        assertThat(policy.backends().get(0).urls()).containsExactly(URI.create("http://127.0.0.1:8000"));
    }

    @Test
    void parse_variableMissing_isAProblemAtItsLine() {
        assertThat(problems(TENANT)).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:6: tenants[0].api_keys[0]: environment variable ACME_KEY is not set");
    }

    @Test
    void parse_substitutedValue_isValidatedLikeAnyOther() {
        assertThat(problems(TENANT + "server: { port: \"${PORT}\" }\n", Map.of("ACME_KEY", "k", "PORT", "http")))
                .extracting(PolicyProblem::toString)
                .containsExactly("policy.yaml:7: server.port: \"http\" is not a whole number");
    }

    @Test
    void parse_severalVariablesInOneValue() throws PolicyException {
        Policy policy = parse("""
                backends:
                  - name: main
                    urls: ["http://${HOST}:${PORT:-8000}"]
                    model_version: "${MODEL}@${REV}"
                """, Map.of("HOST", "gpu", "MODEL", "llama", "REV", "7"));

        assertThat(policy.backends().get(0).urls()).containsExactly(URI.create("http://gpu:8000"));
        assertThat(policy.backends().get(0).modelVersion()).contains("llama@7");
    }

    @Test
    void parse_doubleDollar_escapesALiteral() throws PolicyException {
        Policy policy = parse(TestPolicies.BACKEND + "server: { admin_token: \"a$${NOT_A_VAR}b$c\" }\n");

        assertThat(policy.server().adminToken()).contains("a${NOT_A_VAR}b$c");
    }

    @Test
    void parse_keysAreNeverSubstituted() {
        assertThat(problems(TestPolicies.BACKEND + "server: { \"${KEY}\": 1 }\n", Map.of("KEY", "port")))
                .extracting(PolicyProblem::toString)
                .containsExactly("policy.yaml:4: server.${KEY}: unknown key");
    }

    @Test
    void parse_malformedReference() {
        assertThat(problems(TestPolicies.BACKEND + "server: { admin_token: \"${OPEN\" }\n"))
                .extracting(PolicyProblem::message)
                .containsExactly("unterminated ${ in \"${OPEN\" (write $${ for a literal ${)");
        assertThat(problems(TestPolicies.BACKEND + "server: { admin_token: \"${1BAD}\" }\n"))
                .extracting(PolicyProblem::message)
                .containsExactly("\"${1BAD}\" is not a valid variable reference (use ${NAME} or ${NAME:-default})");
    }

    @Test
    void parse_unreadValuesUnderUnknownKeys_areNotExpanded() {
        assertThat(problems(TestPolicies.BACKEND + "extra: \"${MISSING}\"\n"))
                .extracting(PolicyProblem::message)
                .containsExactly("unknown key");
    }
}
