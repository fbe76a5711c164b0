package io.cachegate.cache.sensitive;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.SensitivePattern;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The detector on real formats and, just as many, on ordinary text that looks like them: each true positive has
 * a near miss (a bad check digit, a reserved range, a short body) that must stay clean.
 */
class SensitiveDataDetectorTest {

    private final SensitiveDataDetector detector = SensitiveDataDetector.builtIn();

    private Set<SensitiveKind> kinds(String text) {
        return detector.scan(text).kinds();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Charge 4111 1111 1111 1111 please", "card=4111111111111111", "5500-0000-0000-0004",
        "amex 3782 822463 10005.", "Discover: 6011 1111 1111 1117", "mc 2223 0031 2200 3222",
        "Order 12 4111 1111 1111 1111", "JCB 3530111333300000", "visa13 4222222222222"})
    void scan_validCardNumber_isPaymentCard(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.PAYMENT_CARD);
    }

    @ParameterizedTest
    @ValueSource(strings = {"4111 1111 1111 1112", "4111111111111112", "1234 5678 9012 3456", "0000 0000 0000 0000",
        "timestamp 1733059200000 ms", "nanos 1733059200000000000", "4111-1111 1111.1111", "4111.1111.1111.1111",
        "order 1000000000000007", "41111111111111111111111", "ref 4111111111111111abc",
        "2024 2025 2026 2027", "pi=3.4111111111111111"})
    void scan_cardLikeNumberFailingChecks_isClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"GB82 WEST 1234 5698 7654 32", "IBAN: DE89370400440532013000.", "FR14 2004 1010 0505 0001 3M02 606",
        "pay to NL91ABNA0417164300 today", "BE68 5390 0754 7034"})
    void scan_validIban_isIban(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.IBAN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GB82 WEST 1234 5698 7654 33", "DE89 3704 0044 0532 0130 0", "DE89370400440532013001",
        "XX82 WEST 1234 5698 7654 32", "GB82  WEST 1234 5698 7654 32", "NL91ABNA0417164300X", "AB12", "DE89 is a code"})
    void scan_ibanFailingChecksumOrLength_isClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"SSN 078-05-1120", "ssn: 219-09-9999.", "my number is 536 22 1234"})
    void scan_validSsn_isSsn(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.SSN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"000-12-3456", "666-12-3456", "912-34-5678", "999-99-9999", "123-00-4567", "123-45-0000",
        "123456789", "078.05.1120", "078-05 1120", "on 2024-05-1120"})
    void scan_ssnOutsideTheRulesOrUnseparated_isClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"call +44 20 7946 0958", "+1 (202) 555-0173", "+49 30 1234567.", "tel:+14155552671",
        "(202) 555-0173", "202-555-0173", "ring 202.555.0173 now", "1-800-555-0199", "+44 (0)20 7946 0958",
        "(415)555-2671"})
    void scan_phoneNumber_isPhone(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.PHONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"call 555-0173", "123-456-7890", "In 2023 we had 1500 users and 37 teams.", "on 2024-01-15",
        "12/25/2024", "it costs $1,234,567.89", "version 1.2.3", "ping 10.0.0.1 or 192.168.100.200",
        "ISBN 978-3-16-148410-0", "order #12345678", "+5 points", "+100 and +200", "3.14159265358979",
        "at 10:30:45", "1 2 3 4 5", "(555) 123", "(1) first item", "5551234567"})
    void scan_ordinaryNumbers_areClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"write to alice@example.com", "john.doe+tag@mail.co.uk", "<Bob.Smith@Corp-Mail.EXAMPLE.org>",
        "git@github.com:owner/repo"})
    void scan_emailAddress_isEmail(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.EMAIL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"thanks @alice", "import from @angular/core", "icon@2x.png", "user@localhost",
        "a @ b.com", "x@y.1", "@@", ".@example.com", "meet @ 5pm.today"})
    void scan_atSignsThatAreNotAddresses_areClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"OPENAI_API_KEY=sk-proj-4f9Qm2xT7bLz8RkWc1VyH3nPa6", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
        "token ghp_16C7e42F292c6912E7710c838347Ae178B4a", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "xoxb-123456789012-abcdefABCDEF", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "glpat-xxxxxxxxxxxxxxxxxxxx",
        "key AIzaSyD-1234567890abcdefghijklmnopqrstu", "hf_abcdefghijklmnopqrstuvwxyzABCDEF"})
    void scan_vendorApiKey_isApiKey(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.API_KEY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"use scikit-learn or sk-learn", "ghp_short", "sk-", "task-1234567890abcdefghijk",
        "xoxb-", "ask-proj-4f9Qm2xT7bLz8RkWc1VyH3nPa6", "a risk-free sk-based approach", "sk-sk-sk-sk-sk-sk"})
    void scan_prefixWithoutAKeyBody_isClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @Test
    void scan_awsAccessKeyId_isAwsKey_butNotShortOrLonger() {
        assertThat(kinds("aws_access_key_id = AKIAIOSFODNN7EXAMPLE")).containsExactly(SensitiveKind.AWS_ACCESS_KEY);
        assertThat(kinds("ASIAY34FZKBOKMUTVV7A")).containsExactly(SensitiveKind.AWS_ACCESS_KEY);
        assertThat(kinds("AKIA1234")).isEmpty();
        assertThat(kinds("AKIAIOSFODNN7EXAMPLEX")).isEmpty();
        assertThat(kinds("AKIAiosfodnn7example")).isEmpty();
    }

    @Test
    void scan_jwt_needsThreePartsAndAHeaderWithAlg() {
        String jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
                + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assertThat(kinds("Authorization: Bearer " + jwt)).containsExactly(SensitiveKind.JWT);
        assertThat(kinds("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")).as("unsigned, alg none")
                .containsExactly(SensitiveKind.JWT);
        assertThat(kinds("eyJ0eXAiOiJ4In0.e30.c2lnbmF0dXJl")).as("a header without alg").isEmpty();
        assertThat(kinds("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")).as("a header alone").isEmpty();
        assertThat(kinds("eyJust kidding.no.way")).isEmpty();
        assertThat(kinds("eyJ!!!notbase64.abc.def")).isEmpty();
    }

    @Test
    void scan_pemPrivateKey_isPrivateKey_butNotCertificatesOrPublicKeys() {
        assertThat(kinds("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA")).containsExactly(SensitiveKind.PRIVATE_KEY);
        assertThat(kinds("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn")).containsExactly(SensitiveKind.PRIVATE_KEY);
        assertThat(kinds("-----BEGIN PRIVATE KEY-----")).containsExactly(SensitiveKind.PRIVATE_KEY);
        assertThat(kinds("-----BEGIN ENCRYPTED PRIVATE KEY-----")).containsExactly(SensitiveKind.PRIVATE_KEY);
        assertThat(kinds("-----BEGIN CERTIFICATE-----\nMIID")).isEmpty();
        assertThat(kinds("-----BEGIN PUBLIC KEY-----\nMIIB")).isEmpty();
        assertThat(kinds("----- a divider -----")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"550e8400-e29b-41d4-a716-446655440000", "12345678-1234-1234-1234-123456789012",
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 4111111111111111deadbeef", "md5 d41d8cd98f00b204e9800998ecf8427e",
        "How do I reset my password? The meeting is on 2024-03-14 at 10:30 and costs $25.99.",
        "Prices rose 4.5% in 2023, from 1,200 to 1,254 units; see page 12 of 300.",
        "The Eiffel Tower is 330 m tall and was built in 1887-1889.", ""})
    void scan_idsHashesAndProse_areClean(String text) {
        assertThat(detector.scan(text).any()).isFalse();
        assertThat(detector.scan(text)).isSameAs(Findings.NONE);
    }

    @Test
    void scan_severalKinds_reportsEachOnceAndNeverTheText() {
        Findings findings = detector.scan("mail a@b.io, card 4111 1111 1111 1111, again c@d.io and 5500 0000 0000 0004");

        assertThat(findings.kinds()).containsExactlyInAnyOrder(SensitiveKind.EMAIL, SensitiveKind.PAYMENT_CARD);
        assertThat(findings.describe()).isEqualTo("email,payment_card");
        assertThat(findings.toString()).doesNotContain("4111").doesNotContain("a@b.io");
    }

    @Test
    void scan_policyPatterns_reportTheirNames() {
        SensitiveDataDetector withPatterns = SensitiveDataDetector.with(List.of(
                new SensitivePattern("employee_id", "EMP-\\d{6}"), new SensitivePattern("project", "(?i)project hydra")));

        assertThat(withPatterns.scan("ask EMP-123456 about Project Hydra").patterns())
                .containsExactly("employee_id", "project");
        assertThat(withPatterns.scan("ask EMP-12345 about hydra").any()).isFalse();
        assertThat(withPatterns.scan("EMP-000001 at a@b.io").describe()).isEqualTo("email,employee_id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"4111  1111  1111  1111", "4111 - 1111 - 1111 - 1111", "4111/1111/1111/1111",
        "4111 1111\n1111 1111", "4111 1111 \r\n 1111 1111", "in 2023. 4111 1111 1111 1111 is mine",
        "4111\t1111\t1111\t1111"})
    void scan_cardWithTheSeparatorsPeopleType_isPaymentCard(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.PAYMENT_CARD);
    }

    @ParameterizedTest
    @ValueSource(strings = {"4111\n1111\n1111\n1111", "4111 1111\n1111\n1111", "4111    1111 1111 1111",
        "4111 /1111-1111 1111", "2021\n2022\n2023\n2024", "12/25/2024 4/5/2025", "078/05/1120", "202/555/0173",
        "078-05\n1120", "202\n555\n0173"})
    void scan_numbersJoinedByBreaksOrSlashesOtherwise_areClean(String text) {
        assertThat(kinds(text)).as("one line break joins a card only; slashes never an SSN or phone").isEmpty();
    }

    @Test
    void scan_cardInOtherCharacters_isFoundAfterFolding() {
        String card = "4111 1111 1111 1111";
        for (String text : List.of("card " + inDigits(card, '\uff10'), "card " + inDigits(card, '\u0660'),
                "card " + card.replace(' ', '\u00a0'), "card " + card.replace(' ', '\u2013'),
                "card " + card.replace(" ", "\u200b"))) {
            assertThat(kinds(text)).as(text).containsExactly(SensitiveKind.PAYMENT_CARD);
        }
    }

    @Test
    void scan_ssnAndPhoneInOtherCharacters_areFound() {
        assertThat(kinds(inDigits("078-05-1120", '\uff10'))).containsExactly(SensitiveKind.SSN);
        assertThat(kinds("078\u201305\u20131120")).containsExactly(SensitiveKind.SSN);
        assertThat(kinds("202\u2010555\u20100173")).containsExactly(SensitiveKind.PHONE);
        assertThat(kinds("\uff0b" + inDigits("44 20 7946 0958", '\uff10'))).containsExactly(SensitiveKind.PHONE);
    }

    /** {@code text} with its ASCII digits written in the script whose zero is {@code zero}. */
    private static String inDigits(String text, char zero) {
        StringBuilder out = new StringBuilder(text.length());
        text.chars().forEach(c -> out.append(Chars.digit((char) c) ? (char) (zero + c - '0') : (char) c));
        return out.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gb82 west 1234 5698 7654 32", "pay de89370400440532013000 now", "Nl91Abna0417164300"})
    void scan_ibanInLowerOrMixedCase_isIban(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.IBAN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"gb82 west 1234 5698 7654 33", "de89370400440532013001", "be68539007547035",
        "de12 is a code", "sha be68539007547034ab"})
    void scan_lowerCaseIbanFailingChecks_isClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"j\u00fcrgen@m\u00fcller.de",
        "\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444",
        "\u7528\u6237@\u4f8b\u5b50.\u4e2d\u56fd", "anna@example.xn--p1ai", "alice\uff20example.com",
        "alice@exam\u200bple.com"})
    void scan_internationalisedEmail_isEmail(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.EMAIL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"@\u30a2\u30ea\u30b9 \u3055\u3093", "\u30e1\u30fc\u30eb\uff20\u3067", "x@y.xn--", "a@b.c1",
        "ping @\u00fcber"})
    void scan_internationalAtSignsThatAreNotAddresses_areClean(String text) {
        assertThat(kinds(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "{\"SecretAccessKey\": \"9drTJvcXLB89EXAMPLELB8923FB892xMFI+bBZq2\"}",
        "my AWS secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY."})
    void scan_awsSecretKeyNamedAsOne_isAwsSecretKey(String text) {
        assertThat(kinds(text)).containsExactly(SensitiveKind.AWS_SECRET_KEY);
    }

    @Test
    void scan_awsSecretKey_besideItsKeyId_orNeither() {
        assertThat(kinds("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
                .containsExactlyInAnyOrder(SensitiveKind.AWS_ACCESS_KEY, SensitiveKind.AWS_SECRET_KEY);
        assertThat(kinds("token wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).as("the shape alone, no context").isEmpty();
        assertThat(kinds("secret sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709")).as("hex: one case").isEmpty();
        assertThat(kinds("the secret is in src/main/java/io/cachegate/SecretStore.java")).isEmpty();
        assertThat(kinds("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYX")).as("41 characters").isEmpty();
        assertThat(kinds("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKE=")).as("padded base64: not a key").isEmpty();
        assertThat(kinds("secret " + "x".repeat(60) + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
                .as("too far from the word").isEmpty();
    }

    @Test
    void scan_policyPattern_readsTheFoldedText() {
        SensitiveDataDetector withPatterns = SensitiveDataDetector.with(List.of(
                new SensitivePattern("employee_id", "EMP-\\d{6}")));

        assertThat(withPatterns.scan("ask EMP-" + inDigits("123456", '\uff10')).patterns())
                .containsExactly("employee_id");
        assertThat(withPatterns.scan("ask EMP\u2013123456").patterns()).containsExactly("employee_id");
        assertThat(withPatterns.scan("ask EMP-\u0661\u0662\u0663").any()).isFalse();
    }

    @Test
    @Timeout(10)
    void scan_hostileRepetitions_finishAndFindNothing() {
        // Each would cost one check per start without the skips (sk-sk-..., eyJ-eyJ-..., a@a@...).
        for (String unit : List.of("eyJ-", "a@", "+1 ", "(2", "-----BEGIN ", "DE89 ", "4111 ", "secret ", "4111\n",
                "\uff14\u00a0", "\u00fc@\u00fc")) {
            String text = unit.repeat(50_000);
            assertThat(detector.scan(text).kinds()).as(unit).doesNotContain(SensitiveKind.API_KEY, SensitiveKind.JWT,
                    SensitiveKind.EMAIL, SensitiveKind.PRIVATE_KEY, SensitiveKind.IBAN);
        }
    }
}
