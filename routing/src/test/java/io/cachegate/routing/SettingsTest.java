package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void defaults_haveTheDocumentedValues() {
        ReplicaSetSettings d = ReplicaSetSettings.defaults();
        assertThat(d.maxConcurrency()).isEqualTo(64);
        assertThat(d.maxInflightTokens()).isEqualTo(ReplicaSetSettings.UNLIMITED_TOKENS);
        assertThat(d.breaker()).isEqualTo(new BreakerSettings(5, Duration.ofSeconds(10)));
        assertThat(d.affinity()).isEqualTo(new PrefixAffinitySettings(256, 1024, 16_384, 1.5, 4096));
    }

    @Test
    void invalidSettings_nameTheField() {
        assertThatThrownBy(() -> ReplicaSetSettings.defaults().withCapacity(0, 10)).hasMessageContaining("maxConcurrency");
        assertThatThrownBy(() -> ReplicaSetSettings.defaults().withCapacity(1, 0)).hasMessageContaining("maxInflightTokens");
        assertThatThrownBy(() -> new BreakerSettings(0, Duration.ZERO)).hasMessageContaining("failureThreshold");
        assertThatThrownBy(() -> new PrefixAffinitySettings(256, 8, 8, 0.5, 0)).hasMessageContaining("loadFactor");
        assertThatThrownBy(() -> new ExternalLoadSettings(-1, 0, Duration.ZERO))
                .hasMessageContaining("tokensPerWaitingRequest");
    }

    @Test
    void builder_rejectsEmptyAndDuplicateReplicas() {
        URI a = URI.create("http://a:1");
        assertThatThrownBy(() -> ReplicaSet.builder("gpu", List.of()).build()).hasMessageContaining("gpu");
        assertThatThrownBy(() -> ReplicaSet.builder("gpu", List.of(a, a)).build()).hasMessageContaining("twice");
    }

    @Test
    void routingRequest_toString_hidesThePrompt() {
        assertThat(RoutingRequest.withPrompt(5, "secret system prompt").toString())
                .doesNotContain("secret").contains("20 chars");
    }
}
