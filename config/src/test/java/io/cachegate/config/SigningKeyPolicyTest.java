package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code cache.exact.signing_key}: absent means CRC only; a short key is refused; the key is never printed. */
class SigningKeyPolicyTest {

    private static final String KEY = "0123456789abcdef0123456789abcdef-signing";

    @Test
    void parse_absentOrEmpty_noSigning() throws PolicyException {
        assertThat(TestPolicies.parse(BACKEND).cache().exact().signingKey()).isEmpty();
        assertThat(TestPolicies.parse(BACKEND + "cache:\n  exact: {signing_key: \"\"}\n").cache().exact().signingKey())
                .as("${CACHEGATE_SIGNING_KEY:-} unset").isEmpty();
    }

    @Test
    void parse_longEnough_isKept_neverPrinted() throws PolicyException {
        Policy policy = TestPolicies.parse(BACKEND + "cache:\n  exact: {signing_key: \"" + KEY + "\"}\n");
        assertThat(policy.cache().exact().signingKey()).contains(SigningKey.of(KEY));
        assertThat(policy.cache().exact().toString()).doesNotContain(KEY).contains("hidden");
    }

    @Test
    void parse_shorterThan32Bytes_isAProblemThatDoesNotQuoteIt() {
        assertThat(problem(BACKEND + "cache:\n  exact: {signing_key: \"short-secret\"}\n"))
                .isEqualTo("policy.yaml:5: cache.exact.signing_key: the signing key is 12 bytes; a signing key needs"
                        + " at least 32 (e.g. openssl rand -base64 48)")
                .doesNotContain("short-secret");
    }
}
