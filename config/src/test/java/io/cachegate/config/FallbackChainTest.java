package io.cachegate.config;

import static io.cachegate.config.TestPolicies.problem;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A route's fallback chain as the policy writes it: {@code fallbacks: [...]}, or the single {@code fallback}. */
class FallbackChainTest {

    private static final String BACKENDS = """
            backends:
              - { name: main, urls: [http://h:1], models: [llama-3.1-8b] }
              - { name: small, urls: [http://h:2], models: ["*"] }
              - { name: tiny, urls: [http://h:3], models: [qwen2.5-0.5b, smollm-135m] }
            routes:
            """;

    private static Route route(String yaml) throws PolicyException {
        return TestPolicies.parse(BACKENDS + yaml).routes().get(0);
    }

    @Test
    void fallbacks_namesAndMappings_keepTheirOrder() throws PolicyException {
        Route route = route("  - { backend: main, fallbacks: [small, {backend: tiny, model: qwen2.5-0.5b}] }\n");

        assertThat(route.fallbacks()).containsExactly(FallbackHop.of("small"), FallbackHop.of("tiny", "qwen2.5-0.5b"));
    }

    @Test
    void fallbacks_blockStyle_readsTheSame() throws PolicyException {
        Route route = route("""
                  - backend: main
                    fallbacks:
                      - tiny
                      - backend: small
                        model: qwen2.5-0.5b
                """);

        assertThat(route.fallbacks()).containsExactly(FallbackHop.of("tiny"), FallbackHop.of("small", "qwen2.5-0.5b"));
    }

    @Test
    void fallback_singleKey_isAOneHopChain() throws PolicyException {
        assertThat(route("  - { backend: main, fallback: small, fallback_model: qwen2.5-0.5b }\n").fallbacks())
                .containsExactly(FallbackHop.of("small", "qwen2.5-0.5b"));
        assertThat(route("  - { backend: main, fallback: small }\n").fallbacks())
                .containsExactly(FallbackHop.of("small"));
        assertThat(route("  - { backend: main }\n").fallbacks()).isEmpty();
    }

    @Test
    void fallbacks_andFallback_onOneRoute_isRefused() {
        assertThat(problem(BACKENDS + "  - { backend: main, fallback: small, fallbacks: [tiny] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks: the route sets both fallbacks and fallback;"
                        + " keep one (fallbacks: [a, b] lists the chain in order)");
        assertThat(problem(BACKENDS + "  - { backend: main, fallback: small, fallback_model: x, fallbacks: [tiny] }\n"))
                .contains("routes[0].fallbacks: the route sets both fallbacks and fallback / fallback_model");
    }

    @Test
    void fallbacks_unknownBackend_isNamedWithItsPosition() {
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [small, tinny] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks[1]: no backend named \"tinny\" (did you mean tiny?)");
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [{backend: smal}] }\n"))
                .startsWith("policy.yaml:6: routes[0].fallbacks[0].backend: no backend named \"smal\"");
    }

    @Test
    void fallbacks_modelTheBackendDoesNotServe_isRefused() {
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [{backend: tiny, model: gpt-4o}] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks[0].model: backend \"tiny\" does not serve \"gpt-4o\""
                        + " (its models: qwen2.5-0.5b, smollm-135m)");
    }

    @Test
    void fallbacks_repeatedHop_orTheOwnBackend_isRefused() {
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [small, tiny, small] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks[2]: \"small\" is already in the chain (fallbacks[0]);"
                        + " each hop is tried at most once");
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [small, main] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks[1]: \"main\" is the route's own backend"
                        + " (name another model to use it as a fallback)");
    }

    @Test
    void fallbacks_sameBackendWithAnotherModel_isAnotherHop() throws PolicyException {
        Route route = route("  - { backend: main, fallbacks: [tiny, {backend: tiny, model: smollm-135m},"
                + " {backend: main, model: llama-3.1-8b}] }\n");

        assertThat(route.fallbacks()).hasSize(3);
    }

    @Test
    void fallbacks_emptyOrMalformed_isRefused() {
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks: must list at least one fallback (or leave fallbacks out)");
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: small }\n"))
                .contains("routes[0].fallbacks: expected a list");
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [{model: qwen2.5-0.5b}] }\n"))
                .isEqualTo("policy.yaml:6: routes[0].fallbacks[0]: needs backend (the backend to send the request to)");
        assertThat(problem(BACKENDS + "  - { backend: main, fallbacks: [{backend: tiny, modle: x}] }\n"))
                .contains("routes[0].fallbacks[0].modle: unknown key");
        assertThat(problems(BACKENDS + "  - { backend: main, fallbacks: [\"\", [tiny]] }\n")).hasSize(2);
    }
}
