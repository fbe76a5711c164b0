package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class TenantLimitsPolicyTest {

    @Test
    void parse_limits_eachOptional_burstDefaultsToTheRate() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                tenants:
                  - id: acme
                    api_keys: [k1]
                    limits: { requests_per_second: 5, tokens_per_minute: 1_000, max_concurrent: 2 }
                  - { id: globex, api_keys: [k2] }
                """);

        TenantLimits acme = policy.tenants().get(0).limits();
        assertThat(acme.requestsPerSecond()).isEqualTo(OptionalLong.of(5));
        assertThat(acme.requestCapacity()).as("burst left out: the rate").isEqualTo(OptionalLong.of(5));
        assertThat(acme.tokensPerMinute()).isEqualTo(OptionalLong.of(1000));
        assertThat(acme.maxConcurrent()).isEqualTo(OptionalLong.of(2));
        assertThat(policy.tenants().get(1).limits()).isEqualTo(TenantLimits.NONE);
        assertThat(TenantLimits.NONE.limited()).isFalse();
    }

    @Test
    void parse_limitsOutOfRange_reportedWithTheirLines() {
        assertThat(problems(BACKEND + """
                tenants:
                  - id: acme
                    api_keys: [k1]
                    limits:
                      requests_per_second: 0
                      burst: many
                      max_concurrent: -1
                      token_per_minute: 5
                  - id: globex
                    api_keys: [k2]
                    limits: { burst: 10 }
                """)).extracting(PolicyProblem::toString).containsExactly(
                "policy.yaml:8: tenants[0].limits.requests_per_second: 0 is out of range 1..1000000",
                "policy.yaml:9: tenants[0].limits.burst: \"many\" is not a whole number",
                "policy.yaml:10: tenants[0].limits.max_concurrent: -1 is out of range 1..1000000",
                "policy.yaml:11: tenants[0].limits.token_per_minute: unknown key (did you mean tokens_per_minute?)",
                "policy.yaml:14: tenants[1].limits.burst: needs requests_per_second, the rate that refills it");
    }
}
