package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StaleIfErrorPolicyTest {

    @Test
    void parse_absent_offEverywhere() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND);
        assertThat(policy.cache().exact().staleIfError()).isZero();
        assertThat(policy.routes().get(0).cache().staleIfError()).isEmpty();
    }

    @Test
    void parse_policyWindow_routeOverridesIncludingZero() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                cache:
                  exact: { ttl: 10m, stale_if_error: 1h }
                routes:
                  - match: { model: "small-*" }
                    cache: { stale_if_error: 0s }
                  - match: { model: "*" }
                    cache: { ttl: 1m, stale_if_error: 30m }
                  - match: { path: /v1/embeddings }
                """);
        assertThat(policy.cache().exact().staleIfError()).isEqualTo(Duration.ofHours(1));
        assertThat(policy.routes().get(0).cache().staleIfError()).contains(Duration.ZERO);
        assertThat(policy.routes().get(1).cache().staleIfError()).contains(Duration.ofMinutes(30));
        assertThat(policy.routes().get(2).cache().staleIfError()).isEqualTo(Optional.empty());
    }

    @Test
    void parse_outOfRangeOrMalformed_reportedWithTheirLines() {
        assertThat(problems(BACKEND + """
                cache:
                  exact: { stale_if_error: 8d }
                routes:
                  - match: { model: "*" }
                    cache:
                      stale_if_error: soon
                """)).extracting(PolicyProblem::toString).anySatisfy(p -> assertThat(p)
                        .contains("cache.exact.stale_if_error: \"8d\" is out of range 0s..7d"))
                .anySatisfy(p -> assertThat(p).contains("routes[0].cache.stale_if_error:"));
    }
}
