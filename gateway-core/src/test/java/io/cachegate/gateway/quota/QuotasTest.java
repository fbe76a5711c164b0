package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ApiKey;
import io.cachegate.config.Tenant;
import io.cachegate.config.TenantLimits;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Bucket4j-backed limits of tenants in one gateway, on a fake clock. */
class QuotasTest {

    private final FakeTicker ticker = new FakeTicker();
    private final GatewayMetrics metrics = new GatewayMetrics();
    private final Quotas quotas = Quotas.local(ticker);

    @AfterEach
    void close() {
        quotas.close();
        metrics.close();
    }

    private static Tenant tenant(String id, Long rps, Long burst, Long tpm, Long concurrent) {
        return new Tenant(id, List.of(ApiKey.of("k-" + id)), List.of(Tenant.ANY_CLASS), Optional.empty(),
                new TenantLimits(optional(rps), optional(burst), optional(tpm), optional(concurrent)));
    }

    private static OptionalLong optional(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private TenantQuota.Taken take(String tenant, long estimate) {
        return quotas.of(tenant).take(estimate).join();
    }

    @Test
    void take_burstThenRefillAtTheRate() {
        quotas.configure(List.of(tenant("acme", 2L, 3L, null, null)));

        for (int i = 0; i < 3; i++) {
            TenantQuota.Taken taken = take("acme", 0);
            assertThat(taken.requests().isConsumed()).as("request %d of the burst of 3", i + 1).isTrue();
            assertThat(taken.requests().getRemainingTokens()).isEqualTo(2 - i);
            assertThat(taken.tokens()).as("tokens unlimited").isNull();
        }
        TenantQuota.Taken refused = take("acme", 0);
        assertThat(refused.requests().isConsumed()).isFalse();
        // 2 per second: the next request is there in half a second, the bucket full again in 1.5 s.
        assertThat(refused.requests().getNanosToWaitForRefill()).isEqualTo(Duration.ofMillis(500).toNanos());
        assertThat(refused.requests().getNanosToWaitForReset()).isEqualTo(Duration.ofMillis(1500).toNanos());

        ticker.advance(Duration.ofMillis(500));
        assertThat(take("acme", 0).requests().isConsumed()).isTrue();
        assertThat(take("acme", 0).requests().isConsumed()).isFalse();
    }

    @Test
    void take_tokensAfterTheRequest_estimateTakenAndCorrected() {
        quotas.configure(List.of(tenant("acme", null, null, 150L, null)));

        TenantQuota.Taken first = take("acme", 100);
        assertThat(first.requests()).as("requests unlimited").isNull();
        assertThat(first.tokens().getRemainingTokens()).isEqualTo(50);
        assertThat(take("acme", 100).tokens().isConsumed()).as("100 more than the 50 left").isFalse();

        first.tokenBucket().adjust(-100); // the answer was a hit: the estimate given back
        TenantQuota.Taken again = take("acme", 100);
        assertThat(again.tokens().isConsumed()).isTrue();
        // 50 left; the answer used 160, not 100: the 60 more are taken even past the limit, 10 owed.
        again.tokenBucket().adjust(+60);
        assertThat(take("acme", 1).tokens().isConsumed()).isFalse();
        // 150 per minute refills 1 token in 0.4 s; 10 tokens are owed, so 11 are needed: 4.4 s.
        ticker.advance(Duration.ofMillis(4400));
        assertThat(take("acme", 1).tokens().isConsumed()).isTrue();
    }

    @Test
    void enter_maxConcurrent_untilOneLeaves() {
        quotas.configure(List.of(tenant("acme", null, null, null, 2L)));
        TenantQuota acme = quotas.of("acme");

        assertThat(acme.enter()).isTrue();
        assertThat(acme.enter()).isTrue();
        assertThat(acme.enter()).isFalse();
        acme.leave();
        assertThat(acme.enter()).isTrue();
        assertThat(acme.inFlight()).isEqualTo(2);
    }

    @Test
    void configure_changedLimits_keepTheLevelAndTheRequestsInFlight() {
        quotas.configure(List.of(tenant("acme", 1L, 2L, null, 5L)));
        TenantQuota acme = quotas.of("acme");
        take("acme", 0);
        take("acme", 0);
        acme.enter();

        quotas.configure(List.of(tenant("acme", 1L, 10L, null, 5L), tenant("globex", 1L, null, null, null)));

        assertThat(quotas.of("acme")).as("the same tenant quota, re-configured").isSameAs(acme);
        assertThat(acme.inFlight()).isEqualTo(1);
        TenantQuota.Taken after = take("acme", 0);
        assertThat(after.requests().isConsumed()).as("a reload refills nobody's bucket").isFalse();
        assertThat(after.requestBucket().capacity()).isEqualTo(10);
        ticker.advance(Duration.ofSeconds(10));
        assertThat(take("acme", 0).requests().getRemainingTokens()).as("now refilled up to the new burst")
                .isEqualTo(9);
    }

    @Test
    void configure_tenantWithoutLimits_orRemoved_isForgotten() {
        quotas.configure(List.of(tenant("acme", 1L, null, null, null), new Tenant("globex", List.of("k"))));
        assertThat(quotas.of("acme")).isNotNull();
        assertThat(quotas.of("globex")).as("no limits: passes untouched").isNull();

        quotas.configure(List.of(new Tenant("globex", List.of("k"))));

        assertThat(quotas.of("acme")).isNull();
    }
}
