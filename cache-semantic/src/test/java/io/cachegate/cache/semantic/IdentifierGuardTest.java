package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

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
