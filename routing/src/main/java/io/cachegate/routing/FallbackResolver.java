package io.cachegate.routing;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Decides between a route's primary and its optional fallback: before sending (primary all down, or
 * the class may degrade and admission says degrade) and after a context-length rejection (retried
 * once on the fallback). Pure and immutable: health arrives as a predicate over backend names
 * (typically {@code name -> sets.get(name).allDown()}).
 */
public final class FallbackResolver {

    private static final String CONTEXT_CODE = "context_length_exceeded";
    private static final String CONTEXT_MESSAGE = "maximum context length";

    private final ModelTarget primary;
    private final Optional<ModelTarget> fallback;

    public FallbackResolver(ModelTarget primary, Optional<ModelTarget> fallback) {
        this.primary = Objects.requireNonNull(primary, "primary");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
    }

    /** Where to send a request for {@code requestedModel} first. */
    public ServeTarget choose(String requestedModel, Predicate<String> backendAllDown, boolean classMayDegrade,
                              boolean admissionSaysDegrade) {
        boolean fallbackUp = fallback.isPresent() && !backendAllDown.test(fallback.get().backend());
        if (backendAllDown.test(primary.backend())) {
            return fallbackUp ? resolve(fallback.get(), requestedModel, ServeReason.PRIMARY_DOWN)
                    : resolve(primary, requestedModel, ServeReason.UNAVAILABLE);
        }
        if (classMayDegrade && admissionSaysDegrade && fallbackUp) {
            return resolve(fallback.get(), requestedModel, ServeReason.DEGRADED);
        }
        return resolve(primary, requestedModel, ServeReason.PRIMARY);
    }

    /**
     * After {@code served} answered {@code status} with {@code body} (the error body, before anything
     * reached the client): the fallback to retry on, once, when it was a context-length rejection by
     * the primary and the fallback is a different, live target; otherwise empty.
     */
    public Optional<ServeTarget> afterError(ServeTarget served, String requestedModel, int status, CharSequence body,
                                            Predicate<String> backendAllDown) {
        if (served.fallback() || fallback.isEmpty() || !isContextLengthError(status, body)) {
            return Optional.empty();
        }
        ServeTarget next = resolve(fallback.get(), requestedModel, ServeReason.CONTEXT_LENGTH);
        boolean same = next.backend().equals(served.backend()) && next.model().equals(served.model());
        if (same || backendAllDown.test(next.backend())) {
            return Optional.empty();
        }
        return Optional.of(next);
    }

    /**
     * A 400 whose body carries OpenAI's {@code context_length_exceeded} code or vLLM's "maximum
     * context length" message. Model servers express this error only in text, hence the match.
     */
    public static boolean isContextLengthError(int status, CharSequence body) {
        if (status != 400 || body == null) {
            return false;
        }
        String text = body.toString();
        return text.contains(CONTEXT_CODE) || text.toLowerCase(Locale.ROOT).contains(CONTEXT_MESSAGE);
    }

    public ModelTarget primary() {
        return primary;
    }

    public Optional<ModelTarget> fallback() {
        return fallback;
    }

    private static ServeTarget resolve(ModelTarget target, String requestedModel, ServeReason reason) {
        return new ServeTarget(target.backend(), target.model().orElse(requestedModel), reason);
    }
}
