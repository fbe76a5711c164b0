package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.OverloadPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void classBuilder_defaults() {
        ClassSettings c = ClassSettings.builder("interactive").build();
        assertThat(c.priority()).isZero();
        assertThat(c.maxQueueTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.share()).isZero();
        assertThat(c.maxQueueRequests()).isEqualTo(1000);
        assertThat(c.maxQueueTokens()).isEqualTo(1_000_000);
        assertThat(c.mayDegrade()).isFalse();
        assertThat(c.pausable()).isFalse();
        assertThat(c.maxInflightShare()).isEqualTo(1.0);
    }

    @Test
    void classSettings_maxInflightShareOutOfRange_rejectedNamingTheField() {
        for (double bad : new double[] {0, -0.5, 1.01, Double.NaN}) {
            assertThatThrownBy(() -> ClassSettings.builder("batch").maxInflightShare(bad).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("class batch: maxInflightShare must be in (0, 1], was " + bad);
        }
        assertThat(ClassSettings.builder("batch").maxInflightShare(0.75).build().maxInflightShare()).isEqualTo(0.75);
    }

    @Test
    void classSettings_oldConstructor_hasNoInflightCap() {
        ClassSettings c = new ClassSettings("batch", 2, Duration.ofSeconds(60), 0.1, false, 10, 1000, true);
        assertThat(c.maxInflightShare()).isEqualTo(1.0);
    }

    @Test
    void admissionSettings_capacityRequests_defaultsToUnknownAndMustBePositive() {
        ClassSettings a = ClassSettings.builder("a").build();
        assertThat(AdmissionSettings.builder().addClass(a).build().capacityRequests()).isEqualTo(Integer.MAX_VALUE);
        assertThat(AdmissionSettings.builder().addClass(a).capacityRequests(8).build().capacityRequests()).isEqualTo(8);
        assertThat(new AdmissionSettings(java.util.List.of(a), OverloadPolicy.defaults(), 1000, Duration.ofSeconds(1),
                0.3, Duration.ofSeconds(60)).capacityRequests()).isEqualTo(AdmissionSettings.UNKNOWN_CAPACITY);
        assertThatThrownBy(() -> AdmissionSettings.builder().addClass(a).capacityRequests(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacityRequests must be at least 1, was 0");
    }

    @Test
    void classStats_oldConstructor_hasNoInflight() {
        assertThat(new AdmissionSnapshot.ClassStats("a", 1, 2, Duration.ZERO, false).inflight()).isZero();
    }

    @Test
    void classSettings_invalid_listsEveryProblem() {
        assertThatThrownBy(() -> ClassSettings.builder("x").priority(-1).share(1).maxQueueRequests(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("priority").hasMessageContaining("share").hasMessageContaining("maxQueueRequests");
    }

    @Test
    void admissionSettings_duplicateNamesAndShares_rejected() {
        ClassSettings a = ClassSettings.builder("a").share(0.6).build();
        ClassSettings b = ClassSettings.builder("a").share(0.5).build();
        assertThatThrownBy(() -> AdmissionSettings.builder().addClass(a).addClass(b).build())
                .hasMessageContaining("duplicate name a").hasMessageContaining("shares");
    }

    @Test
    void admissionSettings_noClasses_rejected() {
        assertThatThrownBy(() -> AdmissionSettings.builder().build()).hasMessageContaining("classes");
    }

    @Test
    void overloadPolicy_exitNotBelowEnter_rejected() {
        assertThatThrownBy(() -> new OverloadPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 100, 10,
                Duration.ZERO, Duration.ZERO)).hasMessageContaining("exitQueueAge");
        assertThatThrownBy(() -> new OverloadPolicy(Duration.ofSeconds(1), Duration.ZERO, 100, 100,
                Duration.ZERO, Duration.ZERO)).hasMessageContaining("exitPendingTokens");
    }

    @Test
    void overloadPolicy_defaults() {
        OverloadPolicy o = OverloadPolicy.defaults();
        assertThat(o.enterQueueAge()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.exitQueueAge()).isEqualTo(Duration.ofMillis(250));
        assertThat(o.enterAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.exitAfter()).isEqualTo(Duration.ofSeconds(10));
    }
}
