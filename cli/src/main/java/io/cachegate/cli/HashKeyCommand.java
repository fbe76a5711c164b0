package io.cachegate.cli;

import io.cachegate.config.ApiKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cachegate hash-key [KEY]}: prints the {@code sha256:<hex>} form of an API key to paste into a policy. */
@Command(name = "hash-key", mixinStandardHelpOptions = true,
        description = {"Print the sha256:<hex> form of an API key, for tenants[].api_keys in a policy.",
                "Reads the key from the first line of standard input when none is given (an argument stays in"
                        + " the shell's history)."})
final class HashKeyCommand implements Callable<Integer> {

    @Parameters(paramLabel = "KEY", arity = "0..1", description = "The plain API key; default: read from stdin.")
    String key;

    @Override
    public Integer call() throws IOException {
        String plain = key;
        if (plain == null) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            plain = in.readLine();
        }
        if (plain == null || plain.strip().isEmpty()) {
            System.err.println("hash-key: no key given (pass it as an argument or on standard input)");
            return 2;
        }
        // Trailing spaces or a CR from a pasted line are not part of a bearer key (the gateway trims it too).
        System.out.println(ApiKey.hash(plain.strip()));
        return 0;
    }
}
