package io.cachegate.routing;

import io.cachegate.config.FallbackHop;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class FallbackResolverTest {

    private static final Predicate<String> NONE_DOWN = b -> false;
    private static final Predicate<String> NONE_DEGRADE = b -> false;
    private static final Predicate<String> ALL_DEGRADE = b -> true;
    private static final String CONTEXT_ERROR = "{\"object\":\"error\",\"message\":\"This model's maximum context "
            + "length is 8192 tokens. However, you requested 9000 tokens.\",\"type\":\"BadRequestError\",\"code\":400}";

    private final FallbackResolver withFallback = new FallbackResolver(FallbackHop.of("gpu"),
            List.of(FallbackHop.of("cloud", "gpt-4o-mini")));
    private final FallbackResolver alone = new FallbackResolver(FallbackHop.of("gpu"), List.of());
    /** primary, then small (same model), then tiny with a model of its own. */
    private final FallbackResolver chain = new FallbackResolver(FallbackHop.of("gpu"),
            List.of(FallbackHop.of("small"), FallbackHop.of("tiny", "qwen2.5-0.5b")));

    @Test
    void choose_healthyPrimary_servesTheRequestedModel() {
        assertThat(withFallback.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE))
                .isEqualTo(ServeTarget.primary("gpu", "llama-3", ServeReason.PRIMARY));
    }

    @Test
    void choose_primaryModelPinned_overridesTheRequest() {
        FallbackResolver pinned = new FallbackResolver(FallbackHop.of("gpu", "llama-3-70b"), List.of());
        assertThat(pinned.choose("llama", NONE_DOWN, false, NONE_DEGRADE).model()).isEqualTo("llama-3-70b");
    }

    @Test
    void choose_primaryAllDown_usesTheFallback() {
        ServeTarget t = withFallback.choose("llama-3", Set.of("gpu")::contains, false, NONE_DEGRADE);
        assertThat(t).isEqualTo(new ServeTarget("cloud", "gpt-4o-mini", ServeReason.PRIMARY_DOWN, 1));
        assertThat(t.fallback()).isTrue();
    }

    @Test
    void choose_primaryAndFirstHopDown_usesTheSecondHop() {
        ServeTarget t = chain.choose("llama-3", Set.of("gpu", "small")::contains, false, NONE_DEGRADE);
        assertThat(t).isEqualTo(new ServeTarget("tiny", "qwen2.5-0.5b", ServeReason.PRIMARY_DOWN, 2));
    }

    @Test
    void choose_everythingDown_isUnavailable() {
        assertThat(withFallback.choose("llama-3", b -> true, false, NONE_DEGRADE).reason())
                .isEqualTo(ServeReason.UNAVAILABLE);
        assertThat(chain.choose("llama-3", b -> true, true, ALL_DEGRADE).reason()).isEqualTo(ServeReason.UNAVAILABLE);
        assertThat(alone.choose("llama-3", Set.of("gpu")::contains, true, ALL_DEGRADE).reason())
                .isEqualTo(ServeReason.UNAVAILABLE);
    }

    @Test
    void choose_degradeNeedsBothClassAndAdmission() {
        assertThat(withFallback.choose("llama-3", NONE_DOWN, true, ALL_DEGRADE).reason())
                .isEqualTo(ServeReason.DEGRADED);
        assertThat(withFallback.choose("llama-3", NONE_DOWN, false, ALL_DEGRADE).reason())
                .isEqualTo(ServeReason.PRIMARY);
        assertThat(withFallback.choose("llama-3", NONE_DOWN, true, NONE_DEGRADE).reason())
                .isEqualTo(ServeReason.PRIMARY);
        assertThat(alone.choose("llama-3", NONE_DOWN, true, ALL_DEGRADE).reason()).isEqualTo(ServeReason.PRIMARY);
    }

    @Test
    void choose_degradeWithFallbackDown_staysOnPrimary() {
        assertThat(withFallback.choose("llama-3", Set.of("cloud")::contains, true, ALL_DEGRADE).reason())
                .isEqualTo(ServeReason.PRIMARY);
    }

    @Test
    void choose_degradeWithTheFirstHopDegradingToo_skipsToTheNextCalmHop() {
        ServeTarget t = chain.choose("llama-3", NONE_DOWN, true, Set.of("gpu", "small")::contains);
        assertThat(t).isEqualTo(new ServeTarget("tiny", "qwen2.5-0.5b", ServeReason.DEGRADED, 2));
    }

    @Test
    void choose_degradeWithEveryHopDegrading_takesTheFirstHopThatIsUp() {
        assertThat(chain.choose("llama-3", NONE_DOWN, true, ALL_DEGRADE))
                .isEqualTo(new ServeTarget("small", "llama-3", ServeReason.DEGRADED, 1));
        assertThat(chain.choose("llama-3", Set.of("small")::contains, true, ALL_DEGRADE).hop()).isEqualTo(2);
    }

    @Test
    void choose_hopAskingThePrimaryForTheSameModel_isSkipped() {
        FallbackResolver resolved = new FallbackResolver(FallbackHop.of(""), List.of(FallbackHop.of("gpu"),
                FallbackHop.of("tiny"))).withPrimary(FallbackHop.of("gpu"));
        assertThat(resolved.choose("llama-3", NONE_DOWN, true, Set.of("gpu")::contains))
                .isEqualTo(new ServeTarget("tiny", "llama-3", ServeReason.DEGRADED, 2));
    }

    @Test
    void afterError_contextLength_retriesOnceOnTheFallback() {
        ServeTarget first = withFallback.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE);
        Optional<ServeTarget> next = withFallback.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN);
        assertThat(next).contains(new ServeTarget("cloud", "gpt-4o-mini", ServeReason.CONTEXT_LENGTH, 1));
        assertThat(withFallback.afterError(next.get(), "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
    }

    @Test
    void afterError_contextLengthAgain_walksTheChainInOrder_eachHopOnce() {
        ServeTarget first = chain.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE);
        ServeTarget second = chain.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN).orElseThrow();
        ServeTarget third = chain.afterError(second, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN).orElseThrow();

        assertThat(List.of(first, second, third)).extracting(ServeTarget::backend)
                .containsExactly("gpu", "small", "tiny");
        assertThat(third).isEqualTo(new ServeTarget("tiny", "qwen2.5-0.5b", ServeReason.CONTEXT_LENGTH, 2));
        assertThat(chain.afterError(third, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).as("the chain is spent").isEmpty();
    }

    @Test
    void afterError_nextHopDown_skipsIt() {
        ServeTarget first = chain.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE);
        assertThat(chain.afterError(first, "llama-3", 400, CONTEXT_ERROR, Set.of("small")::contains))
                .map(ServeTarget::backend).contains("tiny");
    }

    @Test
    void afterError_afterADegradeToTheSecondHop_doesNotGoBackToTheFirst() {
        ServeTarget degraded = chain.choose("llama-3", NONE_DOWN, true, Set.of("gpu", "small")::contains);
        assertThat(degraded.hop()).isEqualTo(2);
        assertThat(chain.afterError(degraded, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
    }

    @Test
    void next_afterAnUnreachableHop_movesOn() {
        ServeTarget first = chain.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE);
        assertThat(chain.next(first, "llama-3", ServeReason.PRIMARY_DOWN, NONE_DOWN))
                .contains(new ServeTarget("small", "llama-3", ServeReason.PRIMARY_DOWN, 1));
    }

    @Test
    void afterError_otherErrors_orNoUsableFallback_doNotRetry() {
        ServeTarget first = withFallback.choose("llama-3", NONE_DOWN, false, NONE_DEGRADE);
        assertThat(withFallback.afterError(first, "llama-3", 400, "{\"message\":\"bad json\"}", NONE_DOWN)).isEmpty();
        assertThat(withFallback.afterError(first, "llama-3", 500, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
        assertThat(withFallback.afterError(first, "llama-3", 400, CONTEXT_ERROR, Set.of("cloud")::contains)).isEmpty();
        assertThat(alone.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
        FallbackResolver same = new FallbackResolver(FallbackHop.of("gpu"), List.of(FallbackHop.of("gpu")));
        assertThat(same.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
    }

    @Test
    void isContextLengthError_recognisesOpenAiCodeAndVllmMessage() {
        assertThat(FallbackResolver.isContextLengthError(400,
                "{\"error\":{\"code\":\"context_length_exceeded\",\"message\":\"too long\"}}")).isTrue();
        assertThat(FallbackResolver.isContextLengthError(400, CONTEXT_ERROR)).isTrue();
        assertThat(FallbackResolver.isContextLengthError(400, "Maximum Context Length exceeded")).isTrue();
        assertThat(FallbackResolver.isContextLengthError(413, CONTEXT_ERROR)).isFalse();
        assertThat(FallbackResolver.isContextLengthError(400, null)).isFalse();
    }
}
