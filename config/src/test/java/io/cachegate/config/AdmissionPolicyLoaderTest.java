package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The admission and routing settings (issue 5): every key read, every default applied. */
class AdmissionPolicyLoaderTest {

    @Test
    void parse_minimalPolicy_admissionAndRoutingDefaults() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND);

        assertThat(policy.admission()).isEqualTo(AdmissionPolicy.defaults());
        assertThat(policy.admission().enabled()).as("on for any policy file (issue 32)").isTrue();
        assertThat(policy.admission().overload()).isEqualTo(new OverloadPolicy(Duration.ofSeconds(1),
                Duration.ofMillis(250), 200_000, 50_000, Duration.ofSeconds(2), Duration.ofSeconds(10)));
        assertThat(policy.admission().initialDrainRate()).isEqualTo(1000.0);
        assertThat(policy.admission().maxRetryAfter()).isEqualTo(Duration.ofSeconds(60));
        assertThat(policy.admission().tick()).isEqualTo(Duration.ofMillis(20));

        Backend main = policy.backends().get(0);
        assertThat(main.balance()).isEqualTo(Balance.LEAST_LOADED);
        assertThat(main.maxConcurrency()).isEmpty(); // auto: found from measured latency
        assertThat(main.maxInflightTokens()).isEqualTo(1_000_000);
        assertThat(main.health()).isEqualTo(new HealthSettings("/v1/models", Duration.ofSeconds(5), 3,
                Duration.ofSeconds(10)));
        assertThat(main.metrics()).isFalse();
        assertThat(main.prefixAffinity()).isEqualTo(new PrefixAffinitySettings(256, 10_000, 1.5));
        assertThat(main.retries()).isEqualTo(new RetrySettings(2, Duration.ofMillis(25)));

        TrafficClass interactive = policy.classes().get("interactive");
        assertThat(interactive).isEqualTo(TrafficClass.interactive());
        assertThat(interactive.maxQueueTokens()).isEqualTo(1_000_000);
        assertThat(interactive.share()).isZero();
        assertThat(interactive.mayDegrade()).isFalse();
        assertThat(interactive.pausable()).isFalse();

        Route route = policy.routes().get(0);
        assertThat(route.fallbacks()).isEmpty();
        assertThat(route.defaultMaxTokens()).isEqualTo(1024);
    }

    @Test
    void parse_fairShareAndTenantWeights() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + """
                tenants:
                  - { id: gold, api_keys: [kg], weight: 2.5 }
                  - { id: free, api_keys: [kf] }
                admission: { enabled: true, fair_share: false }
                """);
        assertThat(policy.admission().fairShare()).isFalse();
        assertThat(policy.tenants().get(0).weight()).isEqualTo(2.5);
        assertThat(policy.tenants().get(1).weight()).isEqualTo(1.0);
        assertThat(AdmissionPolicy.defaults().fairShare()).isTrue();
        assertThat(TestPolicies.problem(BACKEND + "tenants:\n  - { id: a, api_keys: [k], weight: 0 }\n"))
                .endsWith("tenants[0].weight: 0.0 is out of range (0, 1000]");
    }

    @Test
    void parse_balance_ignoresCase() throws PolicyException {
        assertThat(TestPolicies.parse(BACKEND + "    balance: Prefix_Affinity\n").backends().get(0).balance())
                .isEqualTo(Balance.PREFIX_AFFINITY);
    }

    @Test
    void parse_maxConcurrency_absentOrAutoIsAdaptive_aNumberIsFixed() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                backends:
                  - { name: absent, urls: [http://10.0.0.1:8000] }
                  - { name: auto, urls: [http://10.0.0.2:8000], max_concurrency: auto }
                  - { name: fixed, urls: [http://10.0.0.3:8000], max_concurrency: 12 }
                routes:
                  - backend: absent
                """);

        assertThat(policy.backends().get(0).maxConcurrency()).isEmpty();
        assertThat(policy.backends().get(1).maxConcurrency()).isEmpty();
        assertThat(policy.backends().get(2).maxConcurrency()).hasValue(12);
    }

    @Test
    void parse_everyAdmissionAndRoutingSetting_isRead() throws PolicyException {
        Policy policy = TestPolicies.parse("""
                backends:
                  - name: main
                    urls: [http://10.0.0.1:8000, http://10.0.0.2:8000]
                    max_concurrency: 32
                    max_inflight_tokens: 500_000
                    balance: prefix_affinity
                    health: { path: /health, interval: 2s, failures_to_eject: 5, eject_for: 30s }
                    metrics: true
                    prefix_affinity: { block_chars: 128, max_blocks_per_replica: 2000, load_factor: 2.5 }
                    retries: { max_attempts: 3, backoff: 0s }
                  - name: small
                    urls: [http://10.0.0.3:8000]
                    models: ["qwen*"]
                    balance: round_robin
                tenants:
                  - { id: acme, api_keys: [ka], classes: [interactive, batch], default_class: batch }
                  - { id: globex, api_keys: [kg], classes: ["*"], default_class: interactive }
                  - { id: initech, api_keys: [ki] }
                classes:
                  interactive: { max_queue_tokens: 50000, share: 0.25, may_degrade: true }
                  batch: { priority: 2, share: 0.5, pausable: true, max_inflight_share: 0.75 }
                routes:
                  - backend: main
                    fallback: small
                    fallback_model: qwen2.5-0.5b
                    default_max_tokens: 256
                admission:
                  enabled: true
                  overload: { enter_queue_age: 500ms, exit_queue_age: 0s, enter_pending_tokens: 1000,
                              exit_pending_tokens: 10, enter_after: 0s, exit_after: 1m }
                  initial_drain_rate: 2500.5
                  max_retry_after: 2m
                  tick: 5ms
                """);

        assertThat(policy.backends().get(0)).isEqualTo(new Backend("main",
                List.of(URI.create("http://10.0.0.1:8000"), URI.create("http://10.0.0.2:8000")), List.of("*"),
                Optional.empty(), OptionalInt.of(32), 64, Timeouts.defaults(), Optional.empty(), Balance.PREFIX_AFFINITY, 500_000,
                new HealthSettings("/health", Duration.ofSeconds(2), 5, Duration.ofSeconds(30)), true,
                new PrefixAffinitySettings(128, 2000, 2.5), new RetrySettings(3, Duration.ZERO),
                KvEventsSettings.none()));
        assertThat(policy.backends().get(1).balance()).isEqualTo(Balance.ROUND_ROBIN);

        assertThat(policy.tenants().get(0).classes()).containsExactly("interactive", "batch");
        assertThat(policy.tenants().get(0).defaultClass()).contains("batch");
        assertThat(policy.tenants().get(1).classes()).containsExactly("*");
        assertThat(policy.tenants().get(1).defaultClass()).contains("interactive");
        assertThat(policy.tenants().get(2)).isEqualTo(new Tenant("initech", List.of("ki")));
        assertThat(policy.tenants().get(2).classes()).containsExactly(Tenant.ANY_CLASS);
        assertThat(policy.tenants().get(2).defaultClass()).isEmpty();

        assertThat(policy.classes().get("interactive")).isEqualTo(new TrafficClass("interactive", 0,
                Duration.ofSeconds(2), 1000, 50_000, 0.25, true, false));
        assertThat(policy.classes().get("batch")).isEqualTo(new TrafficClass("batch", 2, Duration.ofSeconds(2), 1000,
                1_000_000, 0.5, false, true, 0.75));

        Route route = policy.routes().get(0);
        assertThat(route.fallbacks()).containsExactly(FallbackHop.of("small", "qwen2.5-0.5b"));
        assertThat(route.defaultMaxTokens()).isEqualTo(256);

        assertThat(policy.admission()).isEqualTo(new AdmissionPolicy(true,
                new OverloadPolicy(Duration.ofMillis(500), Duration.ZERO, 1000, 10, Duration.ZERO,
                        Duration.ofMinutes(1)),
                2500.5, Duration.ofMinutes(2), Duration.ofMillis(5), true, true));
    }

    @Test
    void parse_onlyEnterThresholdsRaised_keepsDefaultExits() throws PolicyException {
        OverloadPolicy overload = TestPolicies.parse(BACKEND
                + "admission: { overload: { enter_queue_age: 5s, enter_pending_tokens: 1000000 } }\n")
                .admission().overload();

        assertThat(overload.enterQueueAge()).isEqualTo(Duration.ofSeconds(5));
        assertThat(overload.exitQueueAge()).isEqualTo(Duration.ofMillis(250));
        assertThat(overload.enterPendingTokens()).isEqualTo(1_000_000);
        assertThat(overload.exitPendingTokens()).isEqualTo(50_000);
    }

    @Test
    void parse_fallbackModelOnTheOwnBackend_isAllowed() throws PolicyException {
        Route route = TestPolicies.parse("""
                backends:
                  - { name: main, urls: [http://h:1], models: [big, small] }
                routes:
                  - { backend: main, fallback: main, fallback_model: small }
                """).routes().get(0);

        assertThat(route.fallbacks()).containsExactly(FallbackHop.of("main", "small"));
    }

    @Test
    void parse_sharesJustBelowOne_areAccepted() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + "classes:\n  a: { share: 0.7 }\n  b: { share: 0.2 }\n"
                + "  c: { share: 0.09 }\n");

        assertThat(policy.classes().values()).extracting(TrafficClass::share).containsExactly(0.7, 0.2, 0.09);
    }

    @Test
    void tenant_mayUse() {
        Tenant any = new Tenant("a", List.of("k"));
        Tenant some = new Tenant("b", List.of(ApiKey.of("k2")), List.of("batch"), Optional.of("batch"));

        assertThat(any.mayUse("interactive")).isTrue();
        assertThat(some.mayUse("batch")).isTrue();
        assertThat(some.mayUse("interactive")).isFalse();
    }

    @Test
    void oldConstructors_applyTheNewDefaults() throws PolicyException {
        Policy parsed = TestPolicies.parse(BACKEND);
        Policy built = new Policy("x", parsed.server(), parsed.backends(), parsed.tenants(), parsed.classes(),
                parsed.cache(), parsed.routes());

        assertThat(built.admission()).isEqualTo(AdmissionPolicy.defaults());
        assertThat(new TrafficClass("c", 1, Duration.ofSeconds(1), 10))
                .isEqualTo(new TrafficClass("c", 1, Duration.ofSeconds(1), 10, 1_000_000, 0, false, false));
        assertThat(new Route(0, RouteMatch.any(), Optional.empty(), Optional.empty(), "c", RouteCache.defaults())
                .defaultMaxTokens()).isEqualTo(1024);
        assertThat(parsed.backends().get(0)).isEqualTo(new Backend("main", List.of(URI.create("http://127.0.0.1:8000")),
                List.of("*"), Optional.empty(), OptionalInt.empty(), 64, Timeouts.defaults(), Optional.empty()));
    }

    @Test
    void example_writesOutTheNewSettings() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(name -> null).resource(PolicyLoader.EXAMPLE_RESOURCE);

        Backend main = policy.backend("main").orElseThrow();
        assertThat(main.balance()).isEqualTo(Balance.PREFIX_AFFINITY);
        assertThat(main.health()).isEqualTo(HealthSettings.defaults());
        assertThat(main.prefixAffinity()).isEqualTo(PrefixAffinitySettings.defaults());
        assertThat(main.retries()).isEqualTo(RetrySettings.defaults());
        assertThat(main.maxInflightTokens()).isEqualTo(Backend.DEFAULT_MAX_INFLIGHT_TOKENS);
        assertThat(policy.classes().get("interactive"))
                .as("the example writes out every class default")
                .isEqualTo(TrafficClass.interactive());
        assertThat(policy.classes().get("batch").pausable()).isTrue();
        assertThat(policy.tenants().get(1).classes()).containsExactly("batch");
        assertThat(policy.routes().get(0).fallbacks()).containsExactly(FallbackHop.of("small", "qwen2.5-0.5b"));
        AdmissionPolicy defaults = AdmissionPolicy.defaults();
        assertThat(policy.admission())
                .as("the example writes out every admission default, so it names the prior")
                .isEqualTo(new AdmissionPolicy(defaults.enabled(), defaults.overload(), defaults.initialDrainRate(),
                        defaults.maxRetryAfter(), defaults.tick(), defaults.fairShare(), true));
    }

    @Test
    void embeddedDefault_admissionOnWithAdaptiveCapacity_batchPausable() throws PolicyException {
        Policy policy = PolicyLoader.withEnvironment(name -> null).embeddedDefault();

        assertThat(policy.admission().enabled()).isTrue();
        assertThat(policy.backends()).allSatisfy(b -> assertThat(b.maxConcurrency()).as(b.name()).isEmpty());
        assertThat(policy.classes().get("batch").pausable()).isTrue();
        assertThat(policy.classes().get("interactive").pausable()).isFalse();
    }
}
