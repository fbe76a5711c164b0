package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

/** Parsing helpers for policy tests; the environment is always a map, never the process's. */
final class TestPolicies {

    static final String BACKEND = """
            backends:
              - name: main
                urls: [http://127.0.0.1:8000]
            """;

    private TestPolicies() {
    }

    static Policy parse(String yaml) throws PolicyException {
        return parse(yaml, Map.of());
    }

    static Policy parse(String yaml, Map<String, String> env) throws PolicyException {
        return PolicyLoader.withEnvironment(env::get).parse(yaml, "policy.yaml");
    }

    static List<PolicyProblem> problems(String yaml) {
        return problems(yaml, Map.of());
    }

    static List<PolicyProblem> problems(String yaml, Map<String, String> env) {
        PolicyException[] caught = new PolicyException[1];
        assertThatThrownBy(() -> {
            try {
                parse(yaml, env);
            } catch (PolicyException e) {
                caught[0] = e;
                throw e;
            }
        }).isInstanceOf(PolicyException.class);
        return caught[0].problems();
    }

    /** A single-problem policy's problem as the user sees it. */
    static String problem(String yaml) {
        List<PolicyProblem> problems = problems(yaml);
        if (problems.size() != 1) {
            throw new AssertionError("expected one problem, got " + problems);
        }
        return problems.get(0).toString();
    }
}
