package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Identifier look-alikes (issue 28, item 4): texts a letter or a digit apart that name different things, at a
 * similarity the embedding gives them (0.99), are misses for the default and the static decisions; the same
 * quantity written two ways, and paraphrases naming the same identifier, are not vetoed.
 */
class IdentifierLookalikesTest {

    private static final float SIMILARITY = 0.99f;
    private static final float[] VECTOR = {1f};
    /** The hard vetoes of the default learned decision ({@link LearnedDecision#bundled}). */
    private static final GuardedDecision VETOES = new GuardedDecision(0.92,
            List.of(PairGuard.numbers(), PairGuard.identifiers(), PairGuard.negation()));

    static Stream<Arguments> lookalikes() {
        return Stream.of(
                // the probe's: a number with a letter read as a measurement
                Arguments.of("How do I get to 221B Baker Street?", "How do I get to 221A Baker Street?"),
                Arguments.of("Is part 5521T in stock?", "Is part 5521G in stock?"),
                Arguments.of("Can I book room 101M for Monday?", "Can I book room 101K for Monday?"),
                Arguments.of("Which truck is parked in bay 3V?", "Which truck is parked in bay 3W?"),
                Arguments.of("Is gate 14A open yet?", "Is gate 14B open yet?"),
                // letters that are also units' symbols, and their absence
                Arguments.of("Can I swap to seat 23C?", "Can I swap to seat 23D?"),
                Arguments.of("Is apartment 4B still available?", "Is apartment 4 still available?"),
                Arguments.of("Is the 4K monitor in stock?", "Is the 4G monitor in stock?"),
                Arguments.of("Is highway 95N closed tonight?", "Is highway 95S closed tonight?"),
                Arguments.of("Is the iPhone 6s waterproof?", "Is the iPhone 6 waterproof?"),
                Arguments.of("What is the capacity of the 18650B cell?", "What is the capacity of the 18650A cell?"),
                Arguments.of("Where is locker 12-A?", "Where is locker 12-C?"),
                Arguments.of("Which stop does bus 42X leave from?", "Which stop does bus 42 leave from?"),
                // two or three letters that are no unit
                Arguments.of("Does the 5521GT fit my car?", "Does the 5521GX fit my car?"),
                Arguments.of("Is the 4WD model quieter?", "Is the 4WS model quieter?"),
                Arguments.of("Is the Desert Eagle 50AE legal here?", "Is the Desert Eagle 50GI legal here?"),
                // flights, versions, models, postcodes, tickets
                Arguments.of("Is flight BA117 delayed?", "Is flight BA118 delayed?"),
                Arguments.of("What changed in v2.1?", "What changed in v2.2?"),
                Arguments.of("Is v2.1a affected by the bug?", "Is v2.1b affected by the bug?"),
                Arguments.of("What is the context window of gpt-4o?", "What is the context window of gpt-4.1?"),
                Arguments.of("Deliver to SW1A 1AA tomorrow", "Deliver to SW1A 2AA tomorrow"),
                Arguments.of("What is the status of ticket INC0042?", "What is the status of ticket INC0043?"),
                Arguments.of("Reset my router RT-AX86U", "Reset my router RT-AX86S"),
                Arguments.of("Is platform 9A step-free?", "Is platform 9 step-free?"));
    }

    static Stream<Arguments> samePairs() {
        return Stream.of(
                Arguments.of("How long does it take to walk 5 km?", "How long to walk 5km?"),
                Arguments.of("Is 10GB of storage enough?", "Is 10 GB of storage enough?"),
                Arguments.of("Is 16GB RAM enough to edit 4K video?", "Is 16 gb of ram enough for 4k video editing?"),
                Arguments.of("Will a 9V battery work in my smoke alarm?", "Will a 9 volt battery work in my smoke alarm?"),
                Arguments.of("Best laptops under 50k", "Which is the best laptop under 50K?"),
                Arguments.of("Best laptops under 50k", "Best laptops under 50 thousand"),
                Arguments.of("How do I invest 3M dollars?", "How do I invest 3 million dollars?"),
                Arguments.of("Is the 2.4GHz band faster?", "Is the 2.4 GHz band faster?"),
                Arguments.of("Can I lose 4kg in a month?", "Can I lose 4 kg in a month?"),
                Arguments.of("Does it boil at 100°C?", "Does it boil at 100 °C?"),
                Arguments.of("Meet at 7:30pm?", "Can we meet at 7:30 pm?"),
                Arguments.of("Which songs were hits in the 1980s?", "What songs were hits in the 1980's?"),
                Arguments.of("Is it 2x faster?", "Is it 2 times faster?"),
                Arguments.of("Is it a 5-star hotel?", "Is it a five-star hotel?"),
                Arguments.of("Is a 60 mph limit safe?", "Is a 60mph limit safe?"),
                Arguments.of("Who won in the 21st century?", "Who has won in the 21st century?"),
                Arguments.of("What is the status of order ZX-4471?", "Where is my order zx-4471?"),
                Arguments.of("How do I get to 221B Baker Street?", "What's the way to 221b Baker Street?"),
                Arguments.of("Where is locker 12-A?", "Where can I find locker 12A?"),
                Arguments.of("Which truck is parked in bay 3V?", "Which lorry is in bay 3v?"),
                Arguments.of("Is gate 14A open yet?", "Has gate 14 A opened?"),
                Arguments.of("Does this 2-way radio work?", "Does this two-way radio work?"));
    }

    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("lookalikes")
    void decisions_lookalikeIdentifiers_miss(String query, String cached) {
        List<Neighbour> neighbours = List.of(new Neighbour("e", SIMILARITY, cached, 0, 0));
        assertThat(VETOES.rejection(query, cached)).as("a veto of the default decision").isPresent();
        assertThat(LearnedDecision.bundled(0.92).decide(query, VECTOR, neighbours)).as("learned").isEmpty();
        assertThat(GuardedDecision.withAllGuards(0.92).decide(query, VECTOR, neighbours)).as("guarded").isEmpty();
    }

    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("samePairs")
    void vetoes_sameQuantityOrSameIdentifier_pass(String query, String cached) {
        assertThat(VETOES.rejection(query, cached)).isEqualTo(Optional.empty());
        assertThat(VETOES.rejection(cached, query)).isEqualTo(Optional.empty());
    }
}
