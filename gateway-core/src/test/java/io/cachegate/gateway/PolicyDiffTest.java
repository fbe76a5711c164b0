package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.FallbackHop;
import io.cachegate.config.Policy;
import io.cachegate.config.SensitivePattern;
import org.junit.jupiter.api.Test;

/** What a reload takes from the new policy and what it keeps from the running one. */
class PolicyDiffTest {

    private static final String BASE = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1}
            backends:
              - {name: main, urls: ["http://127.0.0.1:8000"]}
            cache:
              exact: {store: memory, ttl: 1h}
            """;

    @Test
    void keepRestartOnly_takesTheNewSensitivePatterns_withoutARestart() {
        Policy running = TestPolicies.parse(BASE);
        Policy next = TestPolicies.parse(BASE + "  sensitive_patterns:\n    - {name: employee_id, regex: \"EMP-\\\\d{6}\"}\n");

        Policy applied = PolicyDiff.keepRestartOnly(running, next);

        assertThat(applied.cache().sensitivePatterns()).extracting(SensitivePattern::name).containsExactly("employee_id");
        assertThat(PolicyDiff.restartRequired(running, next)).isEmpty();
    }

    @Test
    void keepRestartOnly_takesTheNewFallbackChain_withoutARestart() {
        String backends = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1}
                backends:
                  - {name: main, urls: ["http://127.0.0.1:8000"]}
                  - {name: small, urls: ["http://127.0.0.1:8001"]}
                  - {name: tiny, urls: ["http://127.0.0.1:8002"], models: [qwen2.5-0.5b]}
                routes:
                  - backend: main
                """;
        Policy running = TestPolicies.parse(backends + "    fallback: small\n");
        Policy next = TestPolicies.parse(backends + "    fallbacks: [{backend: tiny, model: qwen2.5-0.5b}, small]\n");

        Policy applied = PolicyDiff.keepRestartOnly(running, next);

        assertThat(applied.routes().get(0).fallbacks()).containsExactly(FallbackHop.of("tiny", "qwen2.5-0.5b"),
                FallbackHop.of("small"));
        assertThat(PolicyDiff.restartRequired(running, next)).isEmpty();
    }
}
