package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClassResolverTest {

    private final ClassResolver resolver = new ClassResolver(List.of("interactive", "standard", "batch"),
            "standard");
    private final Optional<TenantClasses> acme = Optional.of(
            new TenantClasses(Set.of("standard", "batch"), Optional.of("batch")));

    @Test
    void resolve_headerTheTenantMayUse_wins() {
        assertThat(resolver.resolve(Optional.of("batch"), acme, Optional.of("standard"))).isEqualTo("batch");
    }

    @Test
    void resolve_headerTheTenantMayNotUse_fallsBackToRoute() {
        assertThat(resolver.resolve(Optional.of("interactive"), acme, Optional.of("standard")))
                .isEqualTo("standard");
    }

    @Test
    void resolve_noTenantsConfigured_anyKnownHeaderWins() {
        assertThat(resolver.resolve(Optional.of("interactive"), Optional.empty(), Optional.of("batch")))
                .isEqualTo("interactive");
    }

    @Test
    void resolve_headerTrimmedAndCaseInsensitive_returnsCanonicalName() {
        assertThat(resolver.resolve(Optional.of("  Interactive "), Optional.empty(), Optional.empty()))
                .isEqualTo("interactive");
    }

    @Test
    void resolve_unknownHeader_fallsBackToRoute() {
        assertThat(resolver.resolve(Optional.of("platinum"), Optional.empty(), Optional.of("batch")))
                .isEqualTo("batch");
    }

    @Test
    void resolve_noHeaderNoRoute_usesTenantDefault() {
        assertThat(resolver.resolve(Optional.empty(), acme, Optional.empty())).isEqualTo("batch");
    }

    @Test
    void resolve_nothingApplies_usesPolicyDefault() {
        Optional<TenantClasses> plain = Optional.of(new TenantClasses(Set.of(), Optional.empty()));
        assertThat(resolver.resolve(Optional.of("interactive"), plain, Optional.empty())).isEqualTo("standard");
        assertThat(resolver.resolve(Optional.empty(), Optional.empty(), Optional.of("gone"))).isEqualTo("standard");
    }

    @Test
    void resolve_wildcardTenant_mayUseAnyClass() {
        Optional<TenantClasses> admin = Optional.of(new TenantClasses(Set.of(TenantClasses.ANY), Optional.empty()));
        assertThat(resolver.resolve(Optional.of("interactive"), admin, Optional.of("batch")))
                .isEqualTo("interactive");
    }

    @Test
    void constructor_unknownDefault_throws() {
        assertThatThrownBy(() -> new ClassResolver(List.of("a"), "b")).hasMessageContaining("defaultClass");
    }
}
