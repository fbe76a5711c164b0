package io.cachegate.cache.sensitive;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.SensitivePattern;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link SensitiveDataDetector#redact}: every occurrence replaced by its kind, the text around it kept. */
class SensitiveDataRedactionTest {

    private final SensitiveDataDetector detector = SensitiveDataDetector.builtIn();

    @Test
    void redact_emailAndCard_replacesEachOccurrence_keepsTheRest() {
        String text = "mail alice.smith+x@example.co.uk or bob@corp.io, card 4111 1111 1111 1111 and 5500-0000-0000-0004.";

        assertThat(detector.redact(text)).isEqualTo("mail [REDACTED:email] or [REDACTED:email], card "
                + "[REDACTED:payment_card] and [REDACTED:payment_card].");
    }

    @Test
    void redact_cardAfterAnOrderNumber_replacesOnlyTheCard() {
        assertThat(detector.redact("Order 12 4111 1111 1111 1111 shipped"))
                .isEqualTo("Order 12 [REDACTED:payment_card] shipped");
    }

    @Test
    void redact_everyBuiltInKind() {
        String jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
                + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        String text = "ssn 078-05-1120, call (212) 555-0173 or +44 20 7946 0958, iban DE89 3704 0044 0532 0130 00, "
                + "key sk-proj-4f9Qm2xT7bLz8RkWc1VyH3nPa6-tail, aws AKIAIOSFODNN7EXAMPLE, jwt " + jwt + " end";

        assertThat(detector.redact(text)).isEqualTo("ssn [REDACTED:ssn], call [REDACTED:phone] or [REDACTED:phone], "
                + "iban [REDACTED:iban], key [REDACTED:api_key], aws [REDACTED:aws_access_key], jwt [REDACTED:jwt] end");
    }

    @Test
    void redact_privateKey_coversTheWholeBlock() {
        String text = "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nthanks";

        assertThat(detector.redact(text)).isEqualTo("here:\n[REDACTED:private_key]\nthanks");
        assertThat(detector.redact("-----BEGIN PRIVATE KEY-----\nMIIE no end"))
                .isEqualTo("[REDACTED:private_key]");
    }

    @Test
    void redact_policyPatterns_byTheirName() {
        SensitiveDataDetector withPatterns = SensitiveDataDetector.with(List.of(
                new SensitivePattern("employee_id", "EMP-\\d{6}")));

        assertThat(withPatterns.redact("ask EMP-123456 and EMP-654321 at a@b.io"))
                .isEqualTo("ask [REDACTED:employee_id] and [REDACTED:employee_id] at [REDACTED:email]");
    }

    @Test
    void redact_foldedFinding_replacesTheOriginalCharacters_keepsTheRest() {
        assertThat(detector.redact("card 4111\u00a01111\u00a01111\u00a01111 ok, \u00e9t\u00e9"))
                .isEqualTo("card [REDACTED:payment_card] ok, \u00e9t\u00e9");
        assertThat(detector.redact("mail alice\uff20example.com now")).as("one NFKC stretch: the '\uff20' alone")
                .isEqualTo("mail [REDACTED:email] now");
        assertThat(detector.redact("\u5361 4111\u200b1111\u200b1111\u200b1111 \u8c22"))
                .isEqualTo("\u5361 [REDACTED:payment_card] \u8c22");
    }

    @Test
    void redact_cleanText_isUnchanged() {
        String text = "The meeting is on 2024-03-14 at 10:30 and costs $25.99; use scikit-learn.";

        assertThat(detector.redact(text)).isEqualTo(text);
    }

    @Test
    void scan_afterTheRefactor_stillReportsEachKindOnce() {
        assertThat(detector.scan("a@b.io c@d.io 4111 1111 1111 1111").describe()).isEqualTo("email,payment_card");
    }

    @Test
    @Timeout(10)
    void redact_hostileRepetitions_finish() {
        for (String unit : List.of("sk-proj-aaaaaaaaaaaaaaaaaaaaaaaa-", "a@b.io ", "4111 1111 1111 1111 ", "eyJ-")) {
            String text = unit.repeat(20_000);
            assertThat(detector.redact(text)).as(unit).isNotNull();
        }
    }
}
