package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.CanonicalRequestTest.body;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Normalize;
import io.cachegate.config.RouteCache;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CacheabilityTest {

    private static final RouteCachePolicy DEFAULT = RouteCachePolicy.of(RouteCache.defaults());
    private static final RouteCachePolicy SAMPLED = new RouteCachePolicy(true, true, false, Normalize.NONE, Set.of("stop"), false);

    private CacheDecision chat(String json, RouteCachePolicy route, String cacheControl) {
        return Cacheability.decide(Dialect.CHAT, body(json), route, CacheControl.parse(cacheControl));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"temperature\":0}", "{\"temperature\":0.0}", "{\"temperature\":0,\"n\":1}",
            "{\"temperature\":0.7,\"seed\":7}", "{\"seed\":0}", "{\"temperature\":-0.0,\"n\":1.0}"})
    void decide_deterministicChat_readsAndWrites(String json) {
        assertThat(chat(json, DEFAULT, null)).isEqualTo(CacheDecision.USE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"temperature\":0.7}", "{\"temperature\":1}", "{\"temperature\":\"0\"}",
            "{\"temperature\":0.7,\"seed\":null}"})
    void decide_sampledChat_bypasses(String json) {
        assertThat(chat(json, DEFAULT, null)).isEqualTo(CacheDecision.bypass(BypassReason.NONDETERMINISTIC));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"temperature\":0,\"n\":2}", "{\"seed\":1,\"n\":0}", "{\"temperature\":0,\"n\":\"1\"}"})
    void decide_nOtherThanOne_bypasses(String json) {
        assertThat(chat(json, DEFAULT, null)).isEqualTo(CacheDecision.bypass(BypassReason.N_GREATER_THAN_ONE));
    }

    @Test
    void decide_routeOptsInToNondeterministic_cachesSampledAnswers() {
        assertThat(chat("{\"temperature\":0.7}", SAMPLED, null)).isEqualTo(CacheDecision.USE);
        assertThat(chat("{\"n\":3}", SAMPLED, null)).isEqualTo(CacheDecision.USE);
    }

    @Test
    void decide_embeddings_alwaysDeterministic() {
        assertThat(Cacheability.decide(Dialect.EMBEDDINGS, body("{\"input\":\"x\",\"temperature\":1}"), DEFAULT,
                CacheControl.NONE)).isEqualTo(CacheDecision.USE);
    }

    @Test
    void decide_completions_followTheChatRules() {
        assertThat(Cacheability.decide(Dialect.COMPLETIONS, body("{\"prompt\":\"x\"}"), DEFAULT, CacheControl.NONE))
                .isEqualTo(CacheDecision.bypass(BypassReason.NONDETERMINISTIC));
        assertThat(Cacheability.decide(Dialect.COMPLETIONS, body("{\"prompt\":\"x\",\"temperature\":0}"), DEFAULT,
                CacheControl.NONE)).isEqualTo(CacheDecision.USE);
    }

    @Test
    void decide_cacheControl() {
        String greedy = "{\"temperature\":0}";
        assertThat(chat(greedy, DEFAULT, "no-store")).isEqualTo(CacheDecision.bypass(BypassReason.NO_STORE));
        assertThat(chat(greedy, DEFAULT, "no-cache")).isEqualTo(new CacheDecision(false, true, BypassReason.NO_CACHE));
        assertThat(chat(greedy, DEFAULT, "no-cache, no-store")).isEqualTo(CacheDecision.bypass(BypassReason.NO_STORE));
        assertThat(chat(greedy, DEFAULT, "max-age=5")).isEqualTo(CacheDecision.USE);
        assertThat(chat("{}", DEFAULT, "no-cache")).isEqualTo(CacheDecision.bypass(BypassReason.NONDETERMINISTIC));
    }

    @Test
    void decide_routeDisabled_winsOverEverything() {
        RouteCachePolicy off = new RouteCachePolicy(false, true, false, Normalize.NONE, Set.of("stop"), false);
        assertThat(chat("{\"temperature\":0}", off, "no-store")).isEqualTo(CacheDecision.bypass(BypassReason.ROUTE_DISABLED));
        assertThat(CacheDecision.bypass(BypassReason.ROUTE_DISABLED).bypassed()).isTrue();
        assertThat(BypassReason.N_GREATER_THAN_ONE.tag()).isEqualTo("n_greater_than_one");
    }

    @Test
    void routeCachePolicy_fromTheRoute() {
        RouteCache cache = new RouteCache(true, false, java.util.Optional.empty(), java.util.Optional.empty(),
                Normalize.CASE, true, true, true, Set.of("stop", "length"), io.cachegate.config.Embed.LAST_USER, 1,
                java.util.Optional.empty());
        RouteCachePolicy policy = RouteCachePolicy.of(cache);

        assertThat(policy).isEqualTo(new RouteCachePolicy(true, true, true, Normalize.CASE, Set.of("length", "stop"), true));
        assertThat(policy.canonicalOptions()).isEqualTo(new CanonicalOptions(Normalize.CASE, true));
        assertThat(policy.namespace("acme")).isEqualTo(CacheKey.SHARED_TENANT);
        assertThat(DEFAULT.namespace("acme")).isEqualTo("acme");
    }
}
