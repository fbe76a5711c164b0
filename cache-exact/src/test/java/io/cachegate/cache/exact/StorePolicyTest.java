package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.CanonicalRequestTest.body;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class StorePolicyTest {

    private static final Set<String> STOP = StorePolicy.DEFAULT_FINISH_REASONS;
    private static final String TWO_CHOICES = "{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"},"
            + "{\"index\":1,\"finish_reason\":\"%s\"}]}";

    @Test
    void storable_completeAnswer() {
        assertThat(StorePolicy.storable(200, body(TWO_CHOICES.formatted("stop")), STOP)).isTrue();
    }

    @Test
    void storable_notOk_never() {
        assertThat(StorePolicy.storable(201, body(TWO_CHOICES.formatted("stop")), STOP)).isFalse();
        assertThat(StorePolicy.storable(500, body(TWO_CHOICES.formatted("stop")), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, null, STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body("{\"error\":{\"message\":\"x\"},\"choices\":[]}"), STOP)).isFalse();
    }

    @Test
    void storable_everyChoiceMustFinishForAnAllowedReason() {
        assertThat(StorePolicy.storable(200, body(TWO_CHOICES.formatted("length")), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body(TWO_CHOICES.formatted("length")), Set.of("stop", "length"))).isTrue();
        assertThat(StorePolicy.storable(200, body("{\"choices\":[{\"finish_reason\":null}]}"), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body("{\"choices\":[{\"index\":0}]}"), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body("{\"choices\":[]}"), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body("{\"choices\":{}}"), STOP)).isFalse();
    }

    @Test
    void storable_embeddingsNeedData() {
        assertThat(StorePolicy.storable(200, body("{\"object\":\"list\",\"data\":[{\"embedding\":[0.1]}]}"), STOP)).isTrue();
        assertThat(StorePolicy.storable(200, body("{\"object\":\"list\",\"data\":[]}"), STOP)).isFalse();
        assertThat(StorePolicy.storable(200, body("{\"object\":\"list\"}"), STOP)).isFalse();
    }
}
