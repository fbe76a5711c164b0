package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.parse;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code routes[].cache.sensitive} and {@code cache.sensitive_patterns}: the policy side of sensitive data. */
class SensitivePolicyTest {

    @Test
    void parse_absent_routesAreNoStore_andNoPatterns() throws Exception {
        Policy policy = parse(BACKEND);

        assertThat(policy.routes().get(0).cache().sensitive()).isEqualTo(SensitiveMode.NO_STORE);
        assertThat(RouteCache.defaults().sensitive()).isEqualTo(SensitiveMode.NO_STORE);
        assertThat(policy.cache().sensitivePatterns()).isEmpty();
    }

    @Test
    void parse_routeModes_andPatternsInOrder() throws Exception {
        Policy policy = parse(BACKEND + """
                cache:
                  sensitive_patterns:
                    - {name: employee_id, regex: "EMP-\\\\d{6}"}
                    - name: project
                      regex: "(?i)project (hydra|kraken)"
                routes:
                  - match: {model: "a*"}
                    cache: {sensitive: private}
                  - match: {model: "*"}
                    cache: {sensitive: allow}
                """);

        assertThat(policy.routes()).extracting(r -> r.cache().sensitive())
                .containsExactly(SensitiveMode.PRIVATE, SensitiveMode.ALLOW);
        assertThat(policy.cache().sensitivePatterns()).extracting(SensitivePattern::name)
                .containsExactly("employee_id", "project");
        assertThat(policy.cache().sensitivePatterns().get(0).regex().matcher("id EMP-123456").find()).isTrue();
        assertThat(policy.cache().sensitivePatterns().get(1).regex().matcher("Project Kraken").find()).isTrue();
    }

    @Test
    void parse_unknownMode_isAProblemWithASuggestion() {
        assertThat(problem(BACKEND + "routes:\n  - cache: {sensitive: privat}\n"))
                .isEqualTo("policy.yaml:5: routes[0].cache.sensitive: \"privat\" is not one of no_store, private, allow"
                        + " (did you mean private?)");
    }

    @Test
    void parse_invalidRegex_isAProblemOnItsLine() {
        assertThat(problem(BACKEND + "cache:\n  sensitive_patterns:\n    - name: broken\n      regex: \"EMP-(\\\\d{6}\"\n"))
                .startsWith("policy.yaml:7: cache.sensitive_patterns[0].regex: is not a valid RE2 regular expression:");
        assertThat(problem(BACKEND + "cache:\n  sensitive_patterns:\n    - {name: backref, regex: \"(a)\\\\1\"}\n"))
                .as("RE2 has no backreferences: refused at load, never a slow match at run time")
                .contains("cache.sensitive_patterns[0].regex: is not a valid RE2 regular expression");
    }

    @Test
    void parse_missingFieldsBadOrDuplicateName_areProblems() {
        assertThat(problem(BACKEND + "cache:\n  sensitive_patterns:\n    - {name: only_name}\n"))
                .isEqualTo("policy.yaml:6: cache.sensitive_patterns[0].regex: is required");
        assertThat(problem(BACKEND + "cache:\n  sensitive_patterns:\n    - {name: \"has space\", regex: x}\n"))
                .isEqualTo("policy.yaml:6: cache.sensitive_patterns[0].name: \"has space\" is not a pattern name:"
                        + " letters, digits and _ only (at most 64)");
        assertThat(problem(BACKEND + "cache:\n  sensitive_patterns:\n    - {name: a, regex: x}\n    - {name: a, regex: y}\n"))
                .isEqualTo("policy.yaml:7: cache.sensitive_patterns[1].name: \"a\" is already the name of the pattern"
                        + " on line 6");
    }
}
