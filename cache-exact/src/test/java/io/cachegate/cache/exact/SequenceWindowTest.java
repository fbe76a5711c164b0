package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.SequenceWindow.Offer.COPY;
import static io.cachegate.cache.exact.SequenceWindow.Offer.TAKEN;
import static io.cachegate.cache.exact.SequenceWindow.Offer.TOO_OLD;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SequenceWindowTest {

    @Test
    void eachNumberIsTakenOnce_inOrderOrNot() {
        SequenceWindow w = new SequenceWindow();
        assertThat(w.take(1_000_000)).isEqualTo(TAKEN);
        assertThat(w.take(1_000_002)).as("a gap: 1,000,001 failed and is sent again later").isEqualTo(TAKEN);
        assertThat(w.take(1_000_003)).isEqualTo(TAKEN);
        assertThat(w.take(1_000_001)).as("the append sent again, after later ones").isEqualTo(TAKEN);
        assertThat(w.take(1_000_001)).as("its first send had landed too: a copy").isEqualTo(COPY);
        assertThat(w.take(1_000_003)).isEqualTo(COPY);
        assertThat(w.take(1_000_000)).isEqualTo(COPY);
    }

    @Test
    void numbersBelowTheWindowAreRefused_numbersItSlidesOverAreFresh() {
        SequenceWindow w = new SequenceWindow();
        assertThat(w.take(10)).isEqualTo(TAKEN);
        assertThat(w.take(10 + SequenceWindow.SIZE)).isEqualTo(TAKEN);
        assertThat(w.take(10)).as("below the window: refused, taken or not").isEqualTo(TOO_OLD);
        assertThat(w.take(11)).as("never taken, the window's oldest number").isEqualTo(TAKEN);
        assertThat(w.take(11)).isEqualTo(COPY);
        assertThat(w.take(10 + 2L * SequenceWindow.SIZE)).isEqualTo(TAKEN);
        assertThat(w.take(10 + SequenceWindow.SIZE + 1)).as("a number the window slid over, never taken").isEqualTo(TAKEN);
        assertThat(w.take(10 + SequenceWindow.SIZE)).as("taken, and now at the window's edge").isEqualTo(TOO_OLD);
    }

    @Test
    void aJumpFarAhead_forgetsNothingItShouldKeep() {
        SequenceWindow w = new SequenceWindow();
        for (long n = 1; n <= 100; n++) {
            assertThat(w.take(n)).isEqualTo(TAKEN);
        }
        long far = 1_765_000_000_000_000L; // microseconds of the wall clock: a writer restarted under its origin
        assertThat(w.take(far)).isEqualTo(TAKEN);
        assertThat(w.take(far - 1)).isEqualTo(TAKEN);
        assertThat(w.take(far - 1)).isEqualTo(COPY);
        assertThat(w.take(50)).isEqualTo(TOO_OLD);
        assertThat(w.take(far - SequenceWindow.SIZE + 1)).as("the window's oldest number, never taken").isEqualTo(TAKEN);
    }

    @Test
    void aWindowResumedAtItsHighest_takesOnlyWhatComesAbove() {
        long highest = 1_765_000_000_000_500L;
        SequenceWindow w = SequenceWindow.takenUpTo(highest);
        assertThat(w.take(highest)).as("the last number taken before the restart").isEqualTo(COPY);
        assertThat(w.take(highest - 17)).as("any number below it, taken or not before").isEqualTo(COPY);
        assertThat(w.take(highest - SequenceWindow.SIZE)).isEqualTo(TOO_OLD);
        assertThat(w.take(highest + 2)).isEqualTo(TAKEN);
        assertThat(w.take(highest + 1)).as("above the saved highest: new").isEqualTo(TAKEN);
        assertThat(w.take(highest + 1)).isEqualTo(COPY);
        assertThat(w.take(highest + SequenceWindow.SIZE + 10)).isEqualTo(TAKEN);
        assertThat(w.take(highest + 11)).as("slid over, never taken").isEqualTo(TAKEN);
    }
}
