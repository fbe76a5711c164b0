package io.cachegate.cli;

import io.cachegate.config.PolicyException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cachegate validate FILE}: prints every problem of a policy file, or {@code ok}. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a policy file; print every problem with its line and path, or 'ok'.")
final class ValidateCommand implements Callable<Integer> {

    @Parameters(paramLabel = "FILE", description = "The YAML policy file.")
    Path file;

    @Override
    public Integer call() {
        try {
            PolicySource.load(file);
            System.out.println("ok");
            return 0;
        } catch (PolicyException e) {
            System.out.println(e.getMessage());
            return 1;
        }
    }
}
