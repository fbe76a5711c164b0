package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/policy.md carries the key table generated from the definitions, exactly. */
class PolicyKeysDocTest {

    @Test
    void policyDoc_holdsTheGeneratedReference() throws IOException {
        Path doc = Path.of("..", "docs", "policy.md");
        assertThat(Files.readString(doc))
                .as("docs/policy.md must contain PolicyKeys.reference(); refresh it from config/target/policy-keys.md")
                .contains(PolicyKeys.reference());
    }
}
