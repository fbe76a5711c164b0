package io.cachegate.cli;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import java.nio.file.Path;

/** Loads the policy a command runs with: the given file, or the embedded default. */
final class PolicySource {

    private PolicySource() {
    }

    static Policy load(Path file) throws PolicyException {
        PolicyLoader loader = PolicyLoader.withEnvironment(System::getenv);
        return file == null ? loader.embeddedDefault() : loader.load(file);
    }
}
