package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StaleWhileRevalidatePolicyTest {

    @Test
    void parse_absent_offEverywhere() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND);
        assertThat(policy.cache().exact().staleWhileRevalidate()).isZero();
        assertThat(policy.routes().get(0).cache().staleWhileRevalidate()).isEmpty();
    }

    @Test
    void parse_policyWindow_routeOverridesIncludingZero() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                cache:
                  exact: { ttl: 10m, stale_while_revalidate: 5m, stale_if_error: 1h }
                routes:
                  - match: { model: "small-*" }
                    cache: { stale_while_revalidate: 0s }
                  - match: { model: "*" }
                    cache: { ttl: 1m, stale_while_revalidate: 30s }
                  - match: { path: /v1/embeddings }
                """);
        assertThat(policy.cache().exact().staleWhileRevalidate()).isEqualTo(Duration.ofMinutes(5));
        assertThat(policy.cache().exact().staleIfError()).isEqualTo(Duration.ofHours(1));
        assertThat(policy.routes().get(0).cache().staleWhileRevalidate()).contains(Duration.ZERO);
        assertThat(policy.routes().get(1).cache().staleWhileRevalidate()).contains(Duration.ofSeconds(30));
        assertThat(policy.routes().get(2).cache().staleWhileRevalidate()).isEqualTo(Optional.empty());
    }

    @Test
    void parse_outOfRangeOrMalformed_reportedWithTheirLines() {
        assertThat(problems(BACKEND + """
                cache:
                  exact: { stale_while_revalidate: 8d }
                routes:
                  - match: { model: "*" }
                    cache:
                      stale_while_revalidate: later
                """)).extracting(PolicyProblem::toString).anySatisfy(p -> assertThat(p)
                        .contains("cache.exact.stale_while_revalidate: \"8d\" is out of range 0s..7d"))
                .anySatisfy(p -> assertThat(p).contains("routes[0].cache.stale_while_revalidate:"));
    }
}
