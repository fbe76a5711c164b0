package io.cachegate.cache.semantic;

import java.util.List;

/** Builds a {@link MatchDecision} by the name the policy gives it ({@code cache.semantic.decision}). */
public final class MatchDecisions {

    /** The learned classifier over pair features, with the bundled parameters: {@link LearnedDecision}. */
    public static final String LEARNED = "learned";
    /** The cosine threshold with every guard: {@link GuardedDecision}. */
    public static final String GUARDED = "guarded";
    /** The bare cosine threshold: {@link CosineThresholdDecision}. */
    public static final String COSINE = "cosine";

    /** The decision with the best held-out figures (see {@code eval-semantic}). */
    public static final String DEFAULT = LEARNED;

    /** Every name {@link #create} knows. */
    public static final List<String> NAMES = List.of(LEARNED, GUARDED, COSINE);

    private MatchDecisions() {
    }

    /**
     * @param name one of {@link #NAMES}
     * @param threshold the cosine threshold (for {@code learned}, the floor below which nothing hits)
     */
    public static MatchDecision create(String name, double threshold) {
        return switch (name) {
            case LEARNED -> LearnedDecision.bundled(threshold);
            case GUARDED -> GuardedDecision.withAllGuards(threshold);
            case COSINE -> new CosineThresholdDecision(threshold);
            default -> throw new IllegalArgumentException("unknown decision '" + name + "', expected one of " + NAMES);
        };
    }
}
