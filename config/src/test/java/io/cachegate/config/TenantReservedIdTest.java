package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantReservedIdTest {

    @Test
    void parse_tenantIdStartingWithUnderscore_isReserved() {
        String yaml = """
                backends:
                  - name: main
                    urls: [http://127.0.0.1:8000]
                tenants:
                  - id: _shared
                    api_keys: [k1]
                """;
        assertThatThrownBy(() -> PolicyLoader.withEnvironment(Map.<String, String>of()::get).parse(yaml, "t.yaml"))
                .isInstanceOf(PolicyException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains("t.yaml:5: tenants[0].id:").contains("reserved"));
    }
}
