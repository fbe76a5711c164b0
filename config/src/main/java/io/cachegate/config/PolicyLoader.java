package io.cachegate.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * Loads and validates policy files. Environment lookups are injected so tests never depend on the
 * process environment: {@code PolicyLoader.withEnvironment(System::getenv)} in production.
 */
public final class PolicyLoader {

    static final String DEFAULT_RESOURCE = "default-policy.yaml";
    static final String EXAMPLE_RESOURCE = "example-policy.yaml";

    private final EnvSubstitution env;

    private PolicyLoader(Function<String, String> env) {
        this.env = new EnvSubstitution(env);
    }

    /** A loader resolving {@code ${VAR}} through {@code env}, which returns null for unset variables. */
    public static PolicyLoader withEnvironment(Function<String, String> env) {
        return new PolicyLoader(Objects.requireNonNull(env, "env"));
    }

    /** Reads and validates a policy file; problems are reported against {@code file} as given. */
    public Policy load(Path file) throws PolicyException {
        String source = file.toString();
        String yaml;
        try {
            if (Files.isDirectory(file)) {
                throw fileProblem(source, "is a directory, not a policy file");
            }
            // Decode strictly: a Latin-1 file would otherwise load with mangled names and keys.
            yaml = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (NoSuchFileException e) {
            throw fileProblem(source, "file not found");
        } catch (AccessDeniedException e) {
            throw fileProblem(source, "permission denied");
        } catch (CharacterCodingException e) {
            throw fileProblem(source, "is not UTF-8 text");
        } catch (IOException e) {
            throw fileProblem(source, "cannot be read: " + e.getMessage());
        }
        return parse(yaml, source);
    }

    /** Validates policy text; {@code sourceName} names it in problems (e.g. the file name). */
    public Policy parse(String yaml, String sourceName) throws PolicyException {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(sourceName, "sourceName");
        // Editors on Windows may prepend a byte order mark; it is not part of the YAML.
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        return PolicyReader.read(text, sourceName, env);
    }

    /** The policy {@code cachegate serve} runs without {@code --config}, shipped in this jar. */
    public Policy embeddedDefault() throws PolicyException {
        return resource(DEFAULT_RESOURCE);
    }

    /** A bundled resource next to this class, parsed under its name. */
    Policy resource(String name) throws PolicyException {
        try (InputStream in = PolicyLoader.class.getResourceAsStream(name)) {
            if (in == null) {
                throw fileProblem(name, "resource missing from the jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), name);
        } catch (IOException e) {
            throw fileProblem(name, "cannot be read: " + e.getMessage());
        }
    }

    private static PolicyException fileProblem(String source, String message) {
        return new PolicyException(new PolicyProblem(source, 0, "", message));
    }
}
