package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Identifiers are facts, not wording: a different order id, host or file is a different question. */
class IdentifierGuardTest {

    private final PairGuard identifiers = PairGuard.identifiers();

    @Test
    void rejects_theProbedNearMisses() {
        assertThat(identifiers.rejects("What is the status of order ZX-4471?", "What is the status of order ZX-4471B?"))
                .isTrue();
        assertThat(identifiers.rejects("Why did pipe-valid-2 fail?", "Why did pipe-valid-2x fail?")).isTrue();
    }

    @Test
    void rejects_differentVersionsHostsFilesAddressesUrlsAndSnakeCase() {
        assertThat(identifiers.rejects("Is 2.3.1-beta affected?", "Is 2.3.1-rc affected?")).isTrue();
        assertThat(identifiers.rejects("Ping api.acme.io please", "Ping api.acme.com please")).isTrue();
        assertThat(identifiers.rejects("Open report.pdf", "Open report.docx")).isTrue();
        assertThat(identifiers.rejects("Mail ops@acme.io", "Mail dev@acme.io")).isTrue();
        assertThat(identifiers.rejects("Fetch https://acme.io/a", "Fetch https://acme.io/b")).isTrue();
        assertThat(identifiers.rejects("What is user_id for?", "What is group_id for?")).isTrue();
        assertThat(identifiers.rejects("Status of ticket INC0042?", "What is the status of my ticket?")).isTrue();
    }

    @Test
    void accepts_sameIdentifiersReworded_anyCase_andSentencePunctuation() {
        assertThat(identifiers.rejects("What is the status of order ZX-4471?",
                "Can you tell me where order zx-4471 is")).isFalse();
        assertThat(identifiers.rejects("Is \"api.acme.io\" down?", "api.acme.io down?")).isFalse();
    }

    @Test
    void reads_aNumberWithOneLetter_asAnIdentifier_evenWhenTheLetterIsAUnitSymbol() {
        assertThat(IdentifierGuard.identifiers("Deliver 5k parts from 221B to room 101M, bay 3V, locker 12-A"))
                .containsExactly("101m", "12a", "221b", "3v", "5k");
        assertThat(IdentifierGuard.identifiers("Parts 5521GT and 4WD, not 5521TB")).as("TB is a unit: a size")
                .containsExactly("4wd", "5521gt");
    }

    @Test
    void ignores_quantitiesInKnownUnits_inAnyCase() {
        assertThat(IdentifierGuard.identifiers("Run 5km in 30min at 10KM/h? 10GB, 10Gb, 2.4GHz, 9.5kWh, 60mph, "
                + "250ms, 1080px, 30000rs, 1.76bn, 500mAh, 100\u00b0C, 2-way, 5-star, 3rd, 24hrs, 7:30pm")).isEmpty();
    }

    @Test
    void accepts_theSameQuantityWrittenOtherwise_butNotAnotherOne() {
        assertThat(identifiers.rejects("Will a 9V battery do?", "Will a 9 volt battery do?")).isFalse();
        assertThat(identifiers.rejects("Laptops under 50k", "Laptops under fifty thousand")).as("past twenty").isTrue();
        assertThat(identifiers.rejects("Laptops under 5k", "Laptops under five thousand")).isFalse();
        assertThat(identifiers.rejects("Hits of the 80s", "Hits of the 80's")).isFalse();
        assertThat(identifiers.rejects("Will a 9V battery do?", "Will a 9 watt battery do?")).isTrue();
        assertThat(identifiers.rejects("A 101M budget", "A 101K budget")).isTrue();
    }

    /** Any letter after any number: another letter, or none, is another identifier; its case or a space is not. */
    @Test
    void rejects_anotherLetterAfterTheSameNumber_property() {
        SplittableRandom random = new SplittableRandom(28L);
        List<String> templates = List.of("Where is room %s?", "Is part %s in stock?", "Which bay is %s, please",
                "Deliver to %s Main Street", "(%s)", "Is %s the one?");
        for (int i = 0; i < 2_000; i++) {
            String number = random.nextBoolean() ? String.valueOf(random.nextInt(1, 100_000))
                    : random.nextInt(1, 100) + "." + random.nextInt(0, 10);
            char letter = (char) ('a' + random.nextInt(26));
            char other = (char) ('a' + (letter - 'a' + 1 + random.nextInt(25)) % 26);
            String template = templates.get(random.nextInt(templates.size()));
            String withLetter = template.formatted(number + (random.nextBoolean() ? upper(letter) : letter));
            String description = withLetter + " / " + other;
            assertThat(identifiers.rejects(withLetter, template.formatted(number + other))).as(description).isTrue();
            assertThat(identifiers.rejects(withLetter, template.formatted(number + upper(other)))).as(description)
                    .isTrue();
            assertThat(identifiers.rejects(withLetter, template.formatted(number))).as(description).isTrue();
            assertThat(identifiers.rejects(withLetter, template.formatted(number + letter))).as(description).isFalse();
            assertThat(identifiers.rejects(withLetter, template.formatted(number + " " + upper(letter))))
                    .as(description).isFalse();
            assertThat(identifiers.rejects(withLetter, template.formatted(number + "-" + letter))).as(description)
                    .isFalse();
        }
    }

    private static String upper(char letter) {
        return String.valueOf(letter).toUpperCase(Locale.ROOT);
    }

    @Test
    void ignores_plainWords_hyphenatedWords_abbreviations_andBareNumbers() {
        assertThat(IdentifierGuard.identifiers("I need a follow-up on my top-up, e.g. the U.S. one, for 2 days."))
                .isEmpty();
        assertThat(IdentifierGuard.identifiers("Pay 9.99 on 12/21/17 at 11pm for the 10th and/or 44-in TV, v2.10.0"))
                .as("numbers, dates, units, ordinals, slashed words, versions: the number guard's or wording")
                .isEmpty();
        assertThat(IdentifierGuard.identifiers("Why is my account.what is wrong")).isEmpty();
        assertThat(IdentifierGuard.identifiers("A 54-year-old paid Rs.1000 at 7:30pm for a 5-star, U.S.-backed deal"))
                .isEmpty();
        assertThat(IdentifierGuard.identifiers("Book DL2200 and file my W-2")).containsExactly("dl2200", "w-2");
        assertThat(identifiers.rejects("How long does a top-up take?", "How long for a top up?")).isFalse();
        assertThat(IdentifierGuard.identifiers("Order ZX-4471B (shipped), see report.pdf."))
                .containsExactly("report.pdf", "zx-4471b");
    }
}
