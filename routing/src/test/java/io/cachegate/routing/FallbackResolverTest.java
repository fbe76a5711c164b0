package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class FallbackResolverTest {

    private static final Predicate<String> NONE_DOWN = b -> false;
    private static final String CONTEXT_ERROR = "{\"object\":\"error\",\"message\":\"This model's maximum context "
            + "length is 8192 tokens. However, you requested 9000 tokens.\",\"type\":\"BadRequestError\",\"code\":400}";

    private final FallbackResolver withFallback = new FallbackResolver(ModelTarget.of("gpu"),
            Optional.of(ModelTarget.of("cloud", "gpt-4o-mini")));
    private final FallbackResolver alone = new FallbackResolver(ModelTarget.of("gpu"), Optional.empty());

    @Test
    void choose_healthyPrimary_servesTheRequestedModel() {
        assertThat(withFallback.choose("llama-3", NONE_DOWN, false, false))
                .isEqualTo(new ServeTarget("gpu", "llama-3", ServeReason.PRIMARY));
    }

    @Test
    void choose_primaryModelPinned_overridesTheRequest() {
        FallbackResolver pinned = new FallbackResolver(ModelTarget.of("gpu", "llama-3-70b"), Optional.empty());
        assertThat(pinned.choose("llama", NONE_DOWN, false, false).model()).isEqualTo("llama-3-70b");
    }

    @Test
    void choose_primaryAllDown_usesTheFallback() {
        ServeTarget t = withFallback.choose("llama-3", Set.of("gpu")::contains, false, false);
        assertThat(t).isEqualTo(new ServeTarget("cloud", "gpt-4o-mini", ServeReason.PRIMARY_DOWN));
        assertThat(t.fallback()).isTrue();
    }

    @Test
    void choose_everythingDown_isUnavailable() {
        assertThat(withFallback.choose("llama-3", b -> true, false, false).reason()).isEqualTo(ServeReason.UNAVAILABLE);
        assertThat(alone.choose("llama-3", Set.of("gpu")::contains, true, true).reason())
                .isEqualTo(ServeReason.UNAVAILABLE);
    }

    @Test
    void choose_degradeNeedsBothClassAndAdmission() {
        assertThat(withFallback.choose("llama-3", NONE_DOWN, true, true).reason()).isEqualTo(ServeReason.DEGRADED);
        assertThat(withFallback.choose("llama-3", NONE_DOWN, false, true).reason()).isEqualTo(ServeReason.PRIMARY);
        assertThat(withFallback.choose("llama-3", NONE_DOWN, true, false).reason()).isEqualTo(ServeReason.PRIMARY);
        assertThat(alone.choose("llama-3", NONE_DOWN, true, true).reason()).isEqualTo(ServeReason.PRIMARY);
    }

    @Test
    void choose_degradeWithFallbackDown_staysOnPrimary() {
        assertThat(withFallback.choose("llama-3", Set.of("cloud")::contains, true, true).reason())
                .isEqualTo(ServeReason.PRIMARY);
    }

    @Test
    void afterError_contextLength_retriesOnceOnTheFallback() {
        ServeTarget first = withFallback.choose("llama-3", NONE_DOWN, false, false);
        Optional<ServeTarget> next = withFallback.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN);
        assertThat(next).contains(new ServeTarget("cloud", "gpt-4o-mini", ServeReason.CONTEXT_LENGTH));
        assertThat(withFallback.afterError(next.get(), "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
    }

    @Test
    void afterError_otherErrors_orNoUsableFallback_doNotRetry() {
        ServeTarget first = withFallback.choose("llama-3", NONE_DOWN, false, false);
        assertThat(withFallback.afterError(first, "llama-3", 400, "{\"message\":\"bad json\"}", NONE_DOWN)).isEmpty();
        assertThat(withFallback.afterError(first, "llama-3", 500, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
        assertThat(withFallback.afterError(first, "llama-3", 400, CONTEXT_ERROR, Set.of("cloud")::contains)).isEmpty();
        assertThat(alone.afterError(first, "llama-3", 400, CONTEXT_ERROR, NONE_DOWN)).isEmpty();
        FallbackResolver same = new FallbackResolver(ModelTarget.of("gpu"), Optional.of(ModelTarget.of("gpu")));
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
