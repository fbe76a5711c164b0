package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    private static final String BACKENDS = """
            backends:
              - { name: llama, urls: [http://a:1], models: ["llama-*"] }
              - { name: qwen, urls: [http://b:1], models: ["qwen*"] }
              - { name: any, urls: [http://c:1] }
            tenants:
              - { id: acme, api_keys: [ka] }
              - { id: globex, api_keys: [kg] }
            classes:
              interactive: { priority: 0 }
              batch: { priority: 2 }
            """;

    private static RouteTable table(String routes) throws PolicyException {
        return RouteTable.of(TestPolicies.parse(BACKENDS + routes));
    }

    @Test
    void resolve_firstMatchWins() throws PolicyException {
        RouteTable table = table("""
                routes:
                  - { match: { model: "llama-*" }, backend: qwen, class: batch }
                  - { match: { model: "*" }, backend: llama }
                """);

        ResolvedRoute resolved = table.resolve("/v1/chat/completions", "llama-3", null).orElseThrow();

        assertThat(resolved.route().index()).isZero();
        assertThat(resolved.backend().name()).as("the named backend, even if its globs differ").isEqualTo("qwen");
        assertThat(resolved.route().trafficClass()).isEqualTo("batch");
        assertThat(table.resolve("/v1/chat/completions", "mistral", null).orElseThrow().route().index()).isOne();
    }

    @Test
    void aNamedRoute_isLabelledByItsName_anUnnamedOneByItsIndex() throws PolicyException {
        RouteTable table = table("""
                routes:
                  - { name: llama-chat, match: { model: "llama-*" }, backend: llama }
                  - { match: { model: "*" } }
                """);
        assertThat(table.resolve("/v1/chat/completions", "llama-3", null).orElseThrow().route().label())
                .isEqualTo("llama-chat");
        assertThat(table.resolve("/v1/chat/completions", "qwen2", null).orElseThrow().route().label()).isEqualTo("1");

        RouteTable reordered = table("""
                routes:
                  - { match: { tenant: acme }, backend: any }
                  - { name: llama-chat, match: { model: "llama-*" }, backend: llama }
                  - { match: { model: "*" } }
                """);
        assertThat(reordered.resolve("/v1/chat/completions", "llama-3", null).orElseThrow().route().label())
                .as("a route moved down keeps its label").isEqualTo("llama-chat");
    }

    @Test
    void resolve_tenantRouteBeforeCatchAll() throws PolicyException {
        RouteTable table = table("""
                routes:
                  - { match: { tenant: acme }, backend: any, fallback: qwen, cache: { shared: true } }
                  - { match: { model: "*" } }
                """);

        ResolvedRoute acme = table.resolve("/v1/completions", "llama-3", "acme").orElseThrow();
        ResolvedRoute globex = table.resolve("/v1/completions", "llama-3", "globex").orElseThrow();
        ResolvedRoute anonymous = table.resolve("/v1/completions", "llama-3", null).orElseThrow();

        assertThat(acme.route().index()).isZero();
        assertThat(acme.backend().name()).isEqualTo("any");
        assertThat(acme.fallbacks()).extracting(Backend::name).containsExactly("qwen");
        assertThat(globex.route().index()).isOne();
        assertThat(globex.fallbacks()).isEmpty();
        assertThat(anonymous.route().index()).isOne();
    }

    @Test
    void resolve_pathGlob() throws PolicyException {
        RouteTable table = table("""
                routes:
                  - { match: { path: "/v1/embeddings" }, backend: any, cache: { exact: false } }
                  - { match: { path: "/v1/chat/*" }, backend: llama }
                """);

        assertThat(table.resolve("/v1/embeddings", "x", null).orElseThrow().route().cache().exact()).isFalse();
        assertThat(table.resolve("/v1/chat/completions", "x", null).orElseThrow().backend().name())
                .isEqualTo("llama");
        assertThat(table.resolve("/v1/completions", "x", null)).isEmpty();
    }

    @Test
    void resolve_noMatch_isEmpty() throws PolicyException {
        RouteTable table = table("routes:\n  - { match: { model: gpt-4o } }\n");

        assertThat(table.resolve("/v1/chat/completions", "gpt-4o-mini", null)).isEmpty();
        assertThat(table.resolve("/v1/chat/completions", null, null)).isEmpty();
    }

    @Test
    void resolve_withoutNamedBackend_usesFirstBackendServingTheModel() throws PolicyException {
        RouteTable table = table("routes:\n  - match: { model: \"*\" }\n");

        assertThat(table.resolve("/v1/chat/completions", "qwen2.5", null).orElseThrow().backend().name())
                .isEqualTo("qwen");
        assertThat(table.resolve("/v1/chat/completions", "llama-3", null).orElseThrow().backend().name())
                .isEqualTo("llama");
        assertThat(table.resolve("/v1/chat/completions", "mistral", null).orElseThrow().backend().name())
                .isEqualTo("any");
    }

    @Test
    void resolve_matchingRouteWithoutBackendForModel_isEmpty() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                backends:
                  - { name: llama, urls: [http://a:1], models: ["llama-*"] }
                routes:
                  - match: { model: "*" }
                  - { match: { model: "*" }, backend: llama }
                """);

        assertThat(RouteTable.of(policy).resolve("/v1/chat/completions", "qwen", null))
                .as("the first match decides; later routes are not tried").isEmpty();
    }

    @Test
    void resolve_defaultRoute_coversEverything() throws PolicyException {
        RouteTable table = RouteTable.of(TestPolicies.parse(TestPolicies.BACKEND));

        ResolvedRoute resolved = table.resolve("/v1/models", null, null).orElseThrow();

        assertThat(resolved.backend().name()).isEqualTo("main");
        assertThat(resolved.route().backend()).isEmpty();
        assertThat(resolved.fallbacks()).isEmpty();
    }

    @Test
    void aRoutesFingerprint_followsItsMatch_notItsPlace() throws PolicyException {
        RouteTable before = table("""
                routes:
                  - { match: { model: "llama-*" }, backend: llama }
                  - { match: { model: "*" }, backend: any }
                """);
        RouteTable after = table("""
                routes:
                  - { match: { model: "qwen*" }, backend: qwen }
                  - { match: { model: "llama-*" }, backend: llama }
                  - { match: { model: "*" }, backend: any }
                """);
        Route llamaBefore = before.resolve("/v1/chat/completions", "llama-3", null).orElseThrow().route();
        Route llamaAfter = after.resolve("/v1/chat/completions", "llama-3", null).orElseThrow().route();
        Route qwen = after.resolve("/v1/chat/completions", "qwen2", null).orElseThrow().route();

        assertThat(llamaAfter.index()).isNotEqualTo(llamaBefore.index());
        assertThat(llamaAfter.match().fingerprint()).isEqualTo(llamaBefore.match().fingerprint()).hasSize(8);
        assertThat(qwen.index()).as("the new route takes the old one's place").isEqualTo(llamaBefore.index());
        assertThat(qwen.match().fingerprint()).as("but not its identity").isNotEqualTo(llamaBefore.match().fingerprint());
        assertThat(new RouteMatch("*", Optional.of("acme"), "*").fingerprint())
                .isNotEqualTo(new RouteMatch("*", Optional.empty(), "*").fingerprint())
                .isNotEqualTo(new RouteMatch("*", Optional.of("globex"), "*").fingerprint());
    }

}
