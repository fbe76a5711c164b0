package io.cachegate.routing;

import io.cachegate.config.FallbackHop;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Walks a route's fallback chain: before sending (the primary all down, or the class may degrade and admission
 * says degrade) and after a failure that another model may not have (a context-length rejection, or a backend
 * found unreachable). The chain is walked forwards only, so each hop is tried at most once per request; a hop
 * that would ask the same backend for the same model as the primary is skipped. Pure and immutable: health and
 * load arrive as predicates over backend names (typically {@code name -> sets.get(name).allDown()}).
 */
public final class FallbackResolver {

    private static final String CONTEXT_CODE = "context_length_exceeded";
    private static final String CONTEXT_MESSAGE = "maximum context length";

    private final FallbackHop primary;
    private final List<FallbackHop> chain;

    public FallbackResolver(FallbackHop primary, List<FallbackHop> chain) {
        this.primary = Objects.requireNonNull(primary, "primary");
        this.chain = List.copyOf(chain);
    }

    /** The same chain behind another primary: a route naming no backend is judged by the one it resolved to. */
    public FallbackResolver withPrimary(FallbackHop resolved) {
        return new FallbackResolver(resolved, chain);
    }

    /**
     * Where to send a request for {@code requestedModel} first. A degrade goes to the first hop that is up and
     * not itself degrading ({@code backendDegrades}), else to the first hop that is up, as a single fallback did.
     */
    public ServeTarget choose(String requestedModel, Predicate<String> backendAllDown, boolean classMayDegrade,
                              Predicate<String> backendDegrades) {
        ServeTarget first = resolve(primary, 0, requestedModel, ServeReason.PRIMARY);
        if (backendAllDown.test(primary.backend())) {
            return next(first, requestedModel, ServeReason.PRIMARY_DOWN, backendAllDown)
                    .orElse(resolve(primary, 0, requestedModel, ServeReason.UNAVAILABLE));
        }
        if (classMayDegrade && backendDegrades.test(primary.backend())) {
            Optional<ServeTarget> up = next(first, requestedModel, ServeReason.DEGRADED, backendAllDown);
            Optional<ServeTarget> calm = next(first, requestedModel, ServeReason.DEGRADED,
                    backendAllDown.or(backendDegrades));
            return calm.or(() -> up).orElse(first);
        }
        return first;
    }

    /**
     * After {@code served} answered {@code status} with {@code body} (the error body, before anything reached the
     * client): the next hop of the chain when it was a context-length rejection; otherwise empty.
     */
    public Optional<ServeTarget> afterError(ServeTarget served, String requestedModel, int status, CharSequence body,
                                            Predicate<String> backendAllDown) {
        if (!isContextLengthError(status, body)) {
            return Optional.empty();
        }
        return next(served, requestedModel, ServeReason.CONTEXT_LENGTH, backendAllDown);
    }

    /**
     * The first hop after {@code served} that is up and asks another backend or model than {@code served} and the
     * primary; empty when the chain is spent.
     */
    public Optional<ServeTarget> next(ServeTarget served, String requestedModel, ServeReason reason,
                                      Predicate<String> backendAllDown) {
        ServeTarget primaryTarget = resolve(primary, 0, requestedModel, ServeReason.PRIMARY);
        for (int hop = served.hop() + 1; hop <= chain.size(); hop++) {
            ServeTarget candidate = resolve(chain.get(hop - 1), hop, requestedModel, reason);
            if (!backendAllDown.test(candidate.backend())
                    && !candidate.sameTarget(served.backend(), served.model())
                    && !candidate.sameTarget(primaryTarget.backend(), primaryTarget.model())) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
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

    public FallbackHop primary() {
        return primary;
    }

    /** The fallback chain, in the order it is tried. */
    public List<FallbackHop> chain() {
        return chain;
    }

    private static ServeTarget resolve(FallbackHop target, int hop, String requestedModel, ServeReason reason) {
        return new ServeTarget(target.backend(), target.model().orElse(requestedModel), reason, hop);
    }
}
