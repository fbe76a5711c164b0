package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyTest {

    private static final String TENANTS = TestPolicies.BACKEND + """
            tenants:
              - { id: acme, api_keys: [ka1, ka2] }
              - { id: globex, api_keys: [kg] }
            """;

    @Test
    void tenantForApiKey_findsTheOwner() throws PolicyException {
        Policy policy = TestPolicies.parse(TENANTS);

        assertThat(policy.authRequired()).isTrue();
        assertThat(policy.tenantForApiKey("ka2").map(Tenant::id)).contains("acme");
        assertThat(policy.tenantForApiKey("kg").map(Tenant::id)).contains("globex");
        assertThat(policy.tenantForApiKey("nope")).isEmpty();
        assertThat(policy.tenantForApiKey(null)).isEmpty();
    }

    @Test
    void tenantForApiKey_survivesRebuildingThePolicy() throws PolicyException {
        Policy policy = TestPolicies.parse(TENANTS);
        Policy copy = new Policy("copy", policy.server(), policy.backends(), List.copyOf(policy.tenants()),
                policy.classes(), policy.cache(), policy.routes());

        assertThat(copy.tenantForApiKey("kg").map(Tenant::id)).contains("globex");
        assertThat(copy.tenants()).isEqualTo(policy.tenants());
        assertThatThrownBy(() -> copy.tenants().add(new Tenant("x", List.of())))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void credential_hashedKey_matchesThePlainKeyAndCarriesItsLabels() throws PolicyException {
        Policy policy = TestPolicies.parse(TestPolicies.BACKEND + """
                tenants:
                  - id: acme
                    api_keys: ["%s", { key: "%s", labels: [hr, finance] }]
                """.formatted(ApiKey.hash("ka1"), ApiKey.hash("ka2").toUpperCase(java.util.Locale.ROOT)
                .replace("SHA256:", "sha256:")));

        assertThat(policy.tenantForApiKey("ka1").map(Tenant::id)).contains("acme");
        assertThat(policy.credential("ka1").map(c -> c.key().labels())).contains(List.of());
        assertThat(policy.credential("ka2").map(c -> c.key().labels())).contains(List.of("hr", "finance"));
        assertThat(policy.tenantForApiKey(ApiKey.hash("ka1"))).as("the digest is not a key").isEmpty();
        assertThat(policy.tenantForApiKey("ka3")).isEmpty();
        assertThat(policy.tenants().get(0).apiKeys()).allMatch(ApiKey::hashed);
    }

    @Test
    void apiKey_toString_showsNeitherKeyNorDigest() {
        ApiKey key = ApiKey.parse("sk-very-secret", List.of("hr"));

        assertThat(key).hasToString("ApiKey[labels=[hr]]");
        assertThat(new Tenant("a", List.of("sk-very-secret")).toString()).doesNotContain("secret")
                .doesNotContain(ApiKey.hash("sk-very-secret").substring(7));
        assertThat(ApiKey.hash("abc"))
                .isEqualTo("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void constructor_sharedApiKey_isRejected() throws PolicyException {
        Policy policy = TestPolicies.parse(TestPolicies.BACKEND);
        List<Tenant> tenants = List.of(new Tenant("a", List.of("k")), new Tenant("b", List.of("k")));

        assertThatThrownBy(() -> new Policy("x", policy.server(), policy.backends(), tenants, policy.classes(),
                policy.cache(), policy.routes()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenants a and b share an API key");
    }

    @Test
    void backend_byName() throws PolicyException {
        Policy policy = TestPolicies.parse(TestPolicies.BACKEND);

        assertThat(policy.backend("main")).isPresent();
        assertThat(policy.backend("other")).isEmpty();
    }

    @Test
    void serves_globMatchesModels() throws PolicyException {
        Backend backend = TestPolicies.parse("""
                backends:
                  - { name: b, urls: [http://h], models: ["llama-*", "qwen2.5-?b"] }
                """).backends().get(0);

        assertThat(backend.serves("llama-3.1-8b")).isTrue();
        assertThat(backend.serves("qwen2.5-7b")).isTrue();
        assertThat(backend.serves("qwen2.5-14b")).isFalse();
        assertThat(backend.serves(null)).isFalse();
    }

    @Test
    void toString_neverShowsSecrets() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                server: { admin_token: s3cret-admin }
                backends:
                  - { name: b, urls: [http://h], api_key: s3cret-upstream }
                tenants:
                  - { id: acme, api_keys: [s3cret-tenant] }
                cache: { semantic: { qdrant: { api_key: s3cret-qdrant } } }
                """);

        assertThat(policy.toString()).doesNotContain("s3cret").contains("acme");
    }
}
