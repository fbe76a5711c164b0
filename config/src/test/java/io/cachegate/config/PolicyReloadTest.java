package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a reload takes from the new policy and what it keeps from the running one, by the keys' reload rules. */
class PolicyReloadTest {

    private static final String BASE = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1}
            backends:
              - {name: main, urls: ["http://127.0.0.1:8000"]}
            cache:
              exact: {store: memory, ttl: 1h}
            """;

    @Test
    void everyKey_hasAReloadRule_ofItsOwnOrItsSections() {
        List<String> without = new ArrayList<>();
        for (Section section : PolicyKeys.ROOT.sections()) {
            collectWithout(section, section.name(), null, without);
        }

        assertThat(without).as("keys whose reload rule is stated neither by them nor by a section around them"
                + " (add .live() or .restart() to the key or its section)").isEmpty();
    }

    @Test
    void restartRequired_listener_reportsTheKey_andTheNextGenerationKeepsTheRunningValue() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE.replace("port: 0, admin_port: 0", "port: 9090, admin_port: 0"));

        assertThat(PolicyReload.restartRequired(running, next)).containsExactly("server.port");
        assertThat(PolicyReload.applied(running, next).server().port()).isZero();
    }

    @Test
    void restartRequired_anyKeyOfARestartSection_reportsTheSection_once() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE + "  semantic: {enabled: true, threshold: 0.8, embedder: {max_tokens: 256}}\n");

        assertThat(PolicyReload.restartRequired(running, next)).containsExactly("cache.semantic");
        assertThat(PolicyReload.applied(running, next).cache().semantic()).isEqualTo(running.cache().semantic());
    }

    @Test
    void applied_liveKeyInARestartSection_takesTheNewValue() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE + "log: {include_text: true, max_files: 9}\n");

        Policy applied = PolicyReload.applied(running, next);

        assertThat(PolicyReload.restartRequired(running, next)).containsExactly("log");
        assertThat(applied.log().includeText()).isTrue();
        assertThat(applied.log().maxFiles()).isEqualTo(running.log().maxFiles());
    }

    @Test
    void applied_liveKeyBesideRestartKeys_takesTheNewValue_andKeepsTheOthers() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE.replace("{store: memory, ttl: 1h}", "{store: redis, ttl: 5m, l1_ttl: 2s}")
                + "admission: {tick: 50ms}\n");

        Policy applied = PolicyReload.applied(running, next);

        assertThat(PolicyReload.restartRequired(running, next))
                .containsExactly("cache.exact.store", "cache.exact.l1_ttl", "admission.tick");
        assertThat(applied.cache().exact().ttl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(applied.cache().exact().store()).isEqualTo(ExactStore.MEMORY);
        assertThat(applied.cache().exact().l1Ttl()).isEqualTo(running.cache().exact().l1Ttl());
        assertThat(applied.admission().tick()).isEqualTo(running.admission().tick());
    }

    @Test
    void restartRequired_comparesValues_notHowTheyAreWritten() throws Exception {
        Policy running = parse(BASE, Map.of("PORT", "0"));
        // The same port through a variable, and the exact timeout's default written out.
        Policy next = parse(BASE.replace("port: 0, admin", "port: \"${PORT}\", admin")
                .replace("ttl: 1h}", "ttl: 1h, timeout: 50ms}"), Map.of("PORT", "0"));

        assertThat(PolicyReload.restartRequired(running, next)).isEmpty();
        assertThat(PolicyReload.applied(running, next)).isEqualTo(next);
    }

    @Test
    void applied_keyAbsentFromTheRunningPolicy_staysAbsent() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE.replace("host: 127.0.0.1}", "host: 127.0.0.1, io_threads: 4}"));

        assertThat(PolicyReload.restartRequired(running, next)).containsExactly("server.io_threads");
        assertThat(PolicyReload.applied(running, next).server().ioThreads()).isZero();
    }

    @Test
    void applied_keepsWhatAnEarlierReloadKept() throws Exception {
        Policy running = parse(BASE);
        Policy first = PolicyReload.applied(running, parse(BASE.replace("{port: 0,", "{port: 9090,")));
        Policy second = parse(BASE.replace("{port: 0,", "{port: 9191,").replace("ttl: 1h", "ttl: 2h"));

        assertThat(PolicyReload.restartRequired(first, second)).containsExactly("server.port");
        assertThat(PolicyReload.applied(first, second).server().port()).isZero();
        assertThat(PolicyReload.applied(first, second).cache().exact().ttl()).isEqualTo(Duration.ofHours(2));
    }

    @Test
    void applied_takesTheNewSensitivePatterns_withoutARestart() throws Exception {
        Policy running = parse(BASE);
        Policy next = parse(BASE + "  sensitive_patterns:\n    - {name: employee_id, regex: \"EMP-\\\\d{6}\"}\n");

        Policy applied = PolicyReload.applied(running, next);

        assertThat(applied.cache().sensitivePatterns()).extracting(SensitivePattern::name).containsExactly("employee_id");
        assertThat(PolicyReload.restartRequired(running, next)).isEmpty();
    }

    @Test
    void applied_takesTheNewFallbackChain_withoutARestart() throws Exception {
        String backends = """
                server: {port: 0, admin_port: 0, host: 127.0.0.1}
                backends:
                  - {name: main, urls: ["http://127.0.0.1:8000"]}
                  - {name: small, urls: ["http://127.0.0.1:8001"]}
                  - {name: tiny, urls: ["http://127.0.0.1:8002"], models: [qwen2.5-0.5b]}
                routes:
                  - backend: main
                """;
        Policy running = parse(backends + "    fallback: small\n");
        Policy next = parse(backends + "    fallbacks: [{backend: tiny, model: qwen2.5-0.5b}, small]\n");

        Policy applied = PolicyReload.applied(running, next);

        assertThat(applied.routes().get(0).fallbacks()).containsExactly(FallbackHop.of("tiny", "qwen2.5-0.5b"),
                FallbackHop.of("small"));
        assertThat(PolicyReload.restartRequired(running, next)).isEmpty();
    }

    @Test
    void applied_runningAdminListenerWithTheFilesMissingToken_isRefused() throws Exception {
        String server = "server: {port: 0, admin_port: 0, host: 127.0.0.1, admin_host: %s, admin_token: \"%s\"}\n";
        Policy running = parse(server.formatted("0.0.0.0", "a-token") + BACKEND);
        // Valid on its own (loopback needs no token), but the admin listener stays on 0.0.0.0 until a restart.
        Policy next = parse(server.formatted("127.0.0.1", "") + BACKEND);

        assertThatThrownBy(() -> PolicyReload.applied(running, next)).isInstanceOf(PolicyException.class)
                .hasMessageContaining("server.admin_host: 0.0.0.0 is not a loopback address")
                .hasMessageNotContaining("a-token");
    }

    @Test
    void applied_policyBuiltInCode_saysThereIsNothingToReload() throws Exception {
        Policy parsed = parse(BASE);
        Policy built = new Policy("built", parsed.server(), parsed.backends(), parsed.tenants(), parsed.classes(),
                parsed.cache(), parsed.routes(), parsed.admission(), parsed.telemetry(), parsed.log(),
                parsed.prices());

        assertThatThrownBy(() -> PolicyReload.applied(built, parsed)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("built in code");
    }

    private static void collectWithout(Section section, String path, ReloadRule inherited, List<String> out) {
        ReloadRule rule = section.reload() != null ? section.reload() : inherited;
        for (Key<?> key : section.keys()) {
            if (key.reload() == null && rule == null) {
                out.add(path + "." + key.name());
            }
        }
        for (Section nested : section.sections()) {
            collectWithout(nested, path + "." + nested.name(), rule, out);
        }
    }
}
