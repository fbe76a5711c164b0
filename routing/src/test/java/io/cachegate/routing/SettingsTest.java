package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.PrefixAffinitySettings;
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
        assertThat(d.affinity()).as("the policy's defaults").isEqualTo(PrefixAffinitySettings.defaults())
                .isEqualTo(new PrefixAffinitySettings(256, 10_000, 1.5, 1024, 4096));
    }

    @Test
    void invalidSettings_nameTheField() {
        assertThatThrownBy(() -> ReplicaSetSettings.defaults().withCapacity(0, 10)).hasMessageContaining("maxConcurrency");
        assertThatThrownBy(() -> ReplicaSetSettings.defaults().withCapacity(1, 0)).hasMessageContaining("maxInflightTokens");
        assertThatThrownBy(() -> new BreakerSettings(0, Duration.ZERO)).hasMessageContaining("failureThreshold");
        assertThatThrownBy(() -> new PrefixAffinitySettings(256, 8, 0.5, 8, 0)).hasMessageContaining("loadFactor");
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
    void routingRequest_toString_showsNoPromptHash() {
        PrefixHashes blocks = PrefixHashes.of("secret system prompt", 4, 100);
        assertThat(RoutingRequest.withBlocks(5, blocks).toString())
                .doesNotContain(Long.toString(blocks.get(0))).contains("blocks=5");
    }
}
