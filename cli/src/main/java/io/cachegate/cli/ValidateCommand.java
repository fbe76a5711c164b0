package io.cachegate.cli;

import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyProblem;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cachegate validate FILE}: prints every problem of a policy file, or its warnings and {@code ok}. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a policy file; print every problem with its line and path, or its warnings and 'ok'.")
final class ValidateCommand implements Callable<Integer> {

    @Parameters(paramLabel = "FILE", description = "The YAML policy file.")
    Path file;

    @Override
    public Integer call() {
        try {
            // Warnings (a plain API key) do not fail validation: the policy loads and serves as written.
            for (PolicyProblem warning : PolicySource.load(file).warnings()) {
                System.out.println("warning: " + warning);
            }
            System.out.println("ok");
            return 0;
        } catch (PolicyException e) {
            System.out.println(e.getMessage());
            return 1;
        }
    }
}
