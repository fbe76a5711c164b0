package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PairGuardTest {

    private final PairGuard numbers = PairGuard.numbers();
    private final PairGuard negation = PairGuard.negation();
    private final PairGuard entities = PairGuard.namedEntities();

    @Test
    void numbers_rejectDifferentDigits() {
        assertThat(numbers.rejects("Can I get a refund after 14 days?", "Can I get a refund after 30 days?")).isTrue();
        assertThat(numbers.rejects("Is the model 6 waterproof?", "Is the model 7 waterproof?")).isTrue();
    }

    @Test
    void numbers_rejectANumberOnOneSideOnly() {
        assertThat(numbers.rejects("How do I book 2 seats?", "How do I book seats?")).isTrue();
    }

    @Test
    void numbers_acceptSameNumbersWrittenDifferently() {
        assertThat(numbers.rejects("My parcel is two weeks late", "The parcel is 2 weeks late")).isFalse();
        assertThat(numbers.rejects("Send 1,000 pounds", "How do I send 1000 pounds?")).isFalse();
        assertThat(numbers.rejects("Reset my password", "I forgot my login, what now?")).isFalse();
    }

    @Test
    void numbers_readDigitsInsideWords() {
        assertThat(NumberGuard.numbers("Does the mp3 player fit a 64GB card?")).containsExactlyInAnyOrder("3", "64");
        assertThat(NumberGuard.numbers("version 007")).containsExactly("7");
    }

    @Test
    void negation_rejectsOneSidedNegation() {
        assertThat(negation.rejects("Why is my card not working?", "Why is my card working?")).isTrue();
        assertThat(negation.rejects("Why doesn't the app open?", "Why does the app open?")).isTrue();
        assertThat(negation.rejects("Can I travel without a passport?", "Can I travel with a passport?")).isTrue();
        assertThat(negation.rejects("I never got my refund", "I got my refund")).isTrue();
    }

    @Test
    void negation_acceptsBothOrNeitherNegated() {
        assertThat(negation.rejects("My card hasn\u2019t arrived", "The card did not come")).isFalse();
        assertThat(negation.rejects("How do I reset my password?", "How can I change my password?")).isFalse();
    }

    @Test
    void negation_ignoresWordsThatOnlyContainACue() {
        assertThat(NegationGuard.negated("Is there a note on the notice board?")).isFalse();
        assertThat(NegationGuard.negated("Cannot log in")).isTrue();
    }

    @Test
    void entities_rejectDifferentNames() {
        assertThat(entities.rejects("How do I get a visa for Canada?", "How do I get a visa for Australia?")).isTrue();
        assertThat(entities.rejects("Is Python faster than Java?", "Is Python fast?")).isTrue();
    }

    @Test
    void entities_acceptSameNamesInAnyCase() {
        assertThat(entities.rejects("What is the best way to learn Python?", "how can i learn python quickly")).isFalse();
        assertThat(entities.rejects("Where is Paris?", "Tell me where Paris is.")).isFalse();
    }

    @Test
    void entities_ignoreSentenceStartsAndThePronounI() {
        assertThat(EntityGuard.entities("Where do I pay? Tell me now. I'm lost")).isEmpty();
        assertThat(EntityGuard.entities("Should I move to Berlin or Munich?")).containsExactlyInAnyOrder("berlin", "munich");
        assertThat(entities.rejects("Refund for annual plans", "Why refund monthly plans")).isFalse();
    }

    @Test
    void named_findsEachGuardAndRejectsUnknownNames() {
        assertThat(PairGuard.all()).extracting(PairGuard::name).containsExactly("numbers", "identifiers", "negation",
                "entities");
        assertThat(PairGuard.named("negation")).isSameAs(negation);
        assertThatThrownBy(() -> PairGuard.named("vibes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vibes");
    }
}
