package io.cachegate.cache.semantic;

import java.util.List;

/**
 * A cheap check over a (query, cached text) pair that vetoes a hit the embedding cannot tell apart:
 * "refund for 2 seats" and "refund for 3 seats" are close in vector space and different questions.
 * Guards are pure functions of the two texts.
 */
public interface PairGuard {

    /** True when the pair must not be treated as the same request. */
    boolean rejects(String query, String cached);

    /** A short lowercase name, for reports and the policy. */
    String name();

    /** The texts mention different numbers (digits, or number words up to twenty). */
    static PairGuard numbers() {
        return NumberGuard.INSTANCE;
    }

    /**
     * The texts name different identifiers: ids mixing letters and digits unless the letters are a known unit,
     * e-mail addresses, hostnames, file names, URLs ({@code ZX-4471} against {@code ZX-4471B}, {@code 221B} against
     * {@code 221A}; not {@code 5km} against {@code 5 km}).
     */
    static PairGuard identifiers() {
        return IdentifierGuard.INSTANCE;
    }

    /** One text is negated (not, no, never, n't, without, …) and the other is not. */
    static PairGuard negation() {
        return NegationGuard.INSTANCE;
    }

    /**
     * The texts ask for opposite actions ("enable 2FA" against "disable 2FA"); not among {@link #all()}: measured
     * as a lever of the error budget ({@code eval-semantic --replay --polarity}).
     */
    static PairGuard polarity() {
        return PolarityGuard.INSTANCE;
    }

    /** A capitalised word past the start of a sentence in one text does not occur in the other. */
    static PairGuard namedEntities() {
        return EntityGuard.INSTANCE;
    }

    /** All guards, in the order they run (cheapest first). */
    static List<PairGuard> all() {
        return List.of(numbers(), identifiers(), negation(), namedEntities());
    }

    /** The guard of that name ({@code numbers}, {@code identifiers}, {@code negation}, {@code entities}). */
    static PairGuard named(String name) {
        for (PairGuard guard : all()) {
            if (guard.name().equals(name)) {
                return guard;
            }
        }
        throw new IllegalArgumentException("unknown guard '" + name
                + "', expected one of numbers, identifiers, negation, entities");
    }
}
