package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.JournalIntake.Outcome.DUPLICATE;
import static io.cachegate.cache.exact.JournalIntake.Outcome.REFUSED;
import static io.cachegate.cache.exact.JournalIntake.Outcome.TAKEN;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JournalIntakeTest {

    private static final String STREAM = "cg:evidence:test";
    private static final EntrySigner KEY = EntrySigner.hmacSha256("k".repeat(32).getBytes(StandardCharsets.UTF_8));
    private static final EntrySigner OTHER = EntrySigner.hmacSha256("o".repeat(32).getBytes(StandardCharsets.UTF_8));

    private static byte[] signed(EntrySigner signer, String stream, String origin, long number, String text) {
        return signer.sign(JournalIntake.macKey(stream, origin, Long.toString(number)),
                text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] n(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void signed_takesAGenuineRecordOnce_andRefusesWhatItsMacDoesNotVouchFor() {
        JournalIntake intake = new JournalIntake(STREAM, KEY, Map.of());
        JournalIntake.Offered first = intake.offer("a", n(100), signed(KEY, STREAM, "a", 100, "verdict"));
        assertThat(first.outcome()).isEqualTo(TAKEN);
        assertThat(first.text()).isEqualTo("verdict");
        assertThat(intake.offer("a", n(100), signed(KEY, STREAM, "a", 100, "verdict")).outcome()).isEqualTo(DUPLICATE);
        assertThat(intake.offer("a", n(101), signed(OTHER, STREAM, "a", 101, "planted")).outcome())
                .as("another key").isEqualTo(REFUSED);
        assertThat(intake.offer("b", n(100), signed(KEY, STREAM, "a", 100, "verdict")).outcome())
                .as("a's record under b's origin").isEqualTo(REFUSED);
        assertThat(intake.offer("a", n(102), signed(KEY, "another stream", "a", 102, "verdict")).outcome())
                .as("from another stream").isEqualTo(REFUSED);
        assertThat(intake.offer("a", n(103), signed(KEY, STREAM, "a", 102, "verdict")).outcome())
                .as("under another number").isEqualTo(REFUSED);
        assertThat(intake.offer("a", null, signed(KEY, STREAM, "a", 104, "verdict")).outcome())
                .as("without its number").isEqualTo(REFUSED);
        assertThat(intake.taken()).isEqualTo(Map.of("a", 100L));
    }

    @Test
    void resumed_takesNoNumberAtOrBelowWhatItHadTaken() {
        JournalIntake intake = new JournalIntake(STREAM, KEY, Map.of("a", 500L));
        assertThat(intake.offer("a", n(480), signed(KEY, STREAM, "a", 480, "old")).outcome()).isEqualTo(DUPLICATE);
        assertThat(intake.offer("a", n(500), signed(KEY, STREAM, "a", 500, "old")).outcome()).isEqualTo(DUPLICATE);
        assertThat(intake.offer("a", n(501), signed(KEY, STREAM, "a", 501, "new")).outcome()).isEqualTo(TAKEN);
        assertThat(intake.offer("b", n(7), signed(KEY, STREAM, "b", 7, "new")).outcome()).isEqualTo(TAKEN);
        assertThat(intake.taken()).isEqualTo(Map.of("a", 501L, "b", 7L));
    }

    @Test
    void unsigned_takesEachNumberOnce_andARecordWithoutANumberAsItIs() {
        JournalIntake intake = new JournalIntake(STREAM, EntrySigner.none(), Map.of());
        byte[] record = "verdict".getBytes(StandardCharsets.UTF_8);
        assertThat(intake.offer("a", n(1), record).outcome()).isEqualTo(TAKEN);
        assertThat(intake.offer("a", n(1), record).outcome()).isEqualTo(DUPLICATE);
        assertThat(intake.offer("a", null, record).outcome()).isEqualTo(TAKEN);
        assertThat(intake.offer("a", null, record).text()).isEqualTo("verdict");
    }
}
