package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

    @Test
    void accept_saneClientId_isKept() {
        assertThat(RequestIds.accept("abc-DEF_1.2:3")).isEqualTo("abc-DEF_1.2:3");
        assertThat(RequestIds.accept("x".repeat(128))).isEqualTo("x".repeat(128));
    }

    @Test
    void accept_insaneOrMissingId_isReplaced() {
        for (String bad : new String[] {null, "", "a b", "a\r\nX-Injected: 1", "ü", "x".repeat(129), "a/b", "<script>"}) {
            String id = RequestIds.accept(bad);
            assertThat(id).as(String.valueOf(bad)).matches("[0-9a-f]{32}").isNotEqualTo(bad);
        }
    }

    @Test
    void forRequest_alwaysGeneratesTheGatewaysOwnId() {
        RequestIds.Ids withClientId = RequestIds.forRequest("client-trace-1");
        assertThat(withClientId.requestId()).isEqualTo("client-trace-1");
        assertThat(withClientId.gatewayId()).matches("[0-9a-f]{32}").isNotEqualTo("client-trace-1");
        RequestIds.Ids without = RequestIds.forRequest(null);
        assertThat(without.requestId()).isEqualTo(without.gatewayId()).matches("[0-9a-f]{32}");
    }

    @Test
    void generate_isHexAndUnique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = RequestIds.generate();
            assertThat(id).matches("[0-9a-f]{32}");
            ids.add(id);
        }
        assertThat(ids).hasSize(10_000);
    }
}
