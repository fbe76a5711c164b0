package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RetryPolicyTest {

    private final SplittableRandom random = new SplittableRandom(7);

    @ParameterizedTest
    @EnumSource(value = FailureKind.class, names = "AFTER_FIRST_BYTE", mode = EnumSource.Mode.EXCLUDE)
    void decide_beforeFirstByte_retriesOnceByDefault(FailureKind kind) {
        RetryPolicy policy = RetryPolicy.defaults();
        assertThat(policy.decide(1, kind, random).retry()).isTrue();
        assertThat(policy.decide(2, kind, random)).isEqualTo(RetryDecision.stop());
    }

    @Test
    void decide_afterFirstByte_neverRetries() {
        RetryPolicy generous = new RetryPolicy(10, Duration.ZERO, Duration.ZERO);
        assertThat(generous.decide(1, FailureKind.AFTER_FIRST_BYTE, random).retry()).isFalse();
    }

    @Test
    void decide_boundsAttempts() {
        RetryPolicy three = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofSeconds(1));
        assertThat(three.decide(2, FailureKind.STATUS_5XX, random).retry()).isTrue();
        assertThat(three.decide(3, FailureKind.STATUS_5XX, random).retry()).isFalse();
        assertThat(new RetryPolicy(1, Duration.ZERO, Duration.ZERO).decide(1, FailureKind.CONNECT_FAILED, random)
                .retry()).isFalse();
    }

    @Test
    void decide_backoffDoublesWithJitterUpToTheCap() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(100), Duration.ofMillis(300));
        for (int i = 0; i < 200; i++) {
            assertThat(policy.decide(1, FailureKind.TIMEOUT_BEFORE_FIRST_BYTE, random).backoff())
                    .isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
            assertThat(policy.decide(2, FailureKind.TIMEOUT_BEFORE_FIRST_BYTE, random).backoff())
                    .isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
            assertThat(policy.decide(9, FailureKind.TIMEOUT_BEFORE_FIRST_BYTE, random).backoff())
                    .isBetween(Duration.ofMillis(150), Duration.ofMillis(300));
        }
    }

    @Test
    void decide_sameSeed_sameBackoff() {
        RetryPolicy policy = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(1));
        assertThat(policy.decide(1, FailureKind.STATUS_429, new SplittableRandom(3)))
                .isEqualTo(policy.decide(1, FailureKind.STATUS_429, new SplittableRandom(3)));
    }

    @Test
    void failureKind_mapsStatuses_and429IsNotTheReplicasFault() {
        assertThat(FailureKind.ofStatus(503)).contains(FailureKind.STATUS_5XX);
        assertThat(FailureKind.ofStatus(429)).contains(FailureKind.STATUS_429);
        assertThat(FailureKind.ofStatus(400)).isEmpty();
        assertThat(FailureKind.STATUS_429.countsAgainstReplica()).isFalse();
        assertThat(FailureKind.CONNECT_FAILED.countsAgainstReplica()).isTrue();
    }

    @Test
    void constructor_invalid_namesTheField() {
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO)).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("baseBackoff");
    }
}
