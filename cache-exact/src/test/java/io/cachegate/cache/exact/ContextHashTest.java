package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ContextHashTest {

    @Test
    void withLabels_none_leavesTheContextAsItWas() {
        assertThat(ContextHash.withLabels("none", Set.of())).isEqualTo("none");
    }

    @Test
    void withLabels_differentSets_differ_sameSetInAnyOrder_same() {
        String hr = ContextHash.withLabels("none", Set.of("hr"));
        assertThat(hr).isNotEqualTo("none").isNotEqualTo(ContextHash.withLabels("none", Set.of("hr", "finance")));
        assertThat(ContextHash.withLabels("none", List.of("finance", "hr")))
                .isEqualTo(ContextHash.withLabels("none", List.of("hr", "finance")));
        assertThat(ContextHash.withLabels("ctx", Set.of("hr"))).isNotEqualTo(hr);
    }

    @Test
    void of_bothAbsent_isNone() {
        assertThat(ContextHash.of(Optional.empty(), Optional.empty())).isEqualTo("none");
    }

    @Test
    void of_anyContext_isSha256Hex() {
        assertThat(ContextHash.of(Optional.of("kb-7"), Optional.empty())).matches("[0-9a-f]{64}");
        assertThat(ContextHash.of(Optional.of("kb-7"), Optional.of("r"))).isEqualTo(ContextHash.of(Optional.of("kb-7"), Optional.of("r")));
    }

    @Test
    void of_shiftedBoundary_differs() {
        assertThat(ContextHash.of(Optional.of("a"), Optional.of("bc"))).isNotEqualTo(ContextHash.of(Optional.of("ab"), Optional.of("c")));
    }

    @Test
    void of_headerAndRouteValue_areNotInterchangeable() {
        assertThat(ContextHash.of(Optional.of("x"), Optional.empty())).isNotEqualTo(ContextHash.of(Optional.empty(), Optional.of("x")));
        assertThat(ContextHash.of(Optional.of(""), Optional.empty())).isNotEqualTo(ContextHash.of(Optional.empty(), Optional.of("")));
    }

    @Test
    void of_differentValues_differ() {
        assertThat(ContextHash.of(Optional.of("prices-2024-07"), Optional.empty()))
                .isNotEqualTo(ContextHash.of(Optional.of("prices-2024-08"), Optional.empty()));
    }
}
