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
 *
 * <p>A policy file is at most {@link #DEFAULT_MAX_FILE_BYTES} (raised with {@value #MAX_BYTES_VARIABLE}),
 * checked before it is parsed: YAML's scanner slows down more than linearly on one long token (a 20 MB comment held
 * a reload for minutes), and {@code validate}, {@code serve} and every reload read files through here.
 */
public final class PolicyLoader {

    static final String DEFAULT_RESOURCE = "default-policy.yaml";
    static final String EXAMPLE_RESOURCE = "example-policy.yaml";
    /** Hundreds of times the example policy: ten thousand tenants with hashed keys fit. */
    public static final long DEFAULT_MAX_FILE_BYTES = 1L << 20;
    /** Raises (or lowers) the file size limit, as a size: {@code 4MiB}. */
    public static final String MAX_BYTES_VARIABLE = "CACHEGATE_POLICY_MAX_BYTES";
    /** Past this a policy is not a policy but an accident, whatever the variable says. */
    private static final long MAX_FILE_BYTES_CEILING = 64L << 20;

    private final EnvSubstitution env;
    private final long maxFileBytes;
    /** Set when {@value #MAX_BYTES_VARIABLE} is not a usable size: every load then fails with it. */
    private final PolicyProblem limitProblem;

    private PolicyLoader(Function<String, String> env) {
        this.env = new EnvSubstitution(env);
        String limit = env.apply(MAX_BYTES_VARIABLE);
        long bytes = DEFAULT_MAX_FILE_BYTES;
        PolicyProblem problem = null;
        if (limit != null && !limit.isBlank()) {
            try {
                bytes = ByteSizes.parse(limit);
                if (bytes < 1024 || bytes > MAX_FILE_BYTES_CEILING) {
                    problem = new PolicyProblem(MAX_BYTES_VARIABLE, 0, "", limit + " is out of range 1KiB..64MiB");
                }
            } catch (IllegalArgumentException e) {
                problem = new PolicyProblem(MAX_BYTES_VARIABLE, 0, "", e.getMessage());
            }
        }
        this.maxFileBytes = problem == null ? bytes : DEFAULT_MAX_FILE_BYTES;
        this.limitProblem = problem;
    }

    /**
     * A loader resolving {@code ${VAR}} through {@code env}, which returns null for unset variables; {@code env}
     * also gives {@value #MAX_BYTES_VARIABLE}.
     */
    public static PolicyLoader withEnvironment(Function<String, String> env) {
        return new PolicyLoader(Objects.requireNonNull(env, "env"));
    }

    /** The largest policy file this loader reads. */
    public long maxFileBytes() {
        return maxFileBytes;
    }

    /** Reads and validates a policy file; problems are reported against {@code file} as given. */
    public Policy load(Path file) throws PolicyException {
        checkLimit();
        String source = file.toString();
        String yaml;
        try {
            if (Files.isDirectory(file)) {
                throw fileProblem(source, "is a directory, not a policy file");
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes((int) maxFileBytes + 1); // never more, whatever the file's size
            }
            if (bytes.length > maxFileBytes) {
                throw fileProblem(source, "is larger than " + ByteSizes.format(maxFileBytes) + ", the most a policy"
                        + " file may be (" + MAX_BYTES_VARIABLE + " raises it)");
            }
            // Decode strictly: a Latin-1 file would otherwise load with mangled names and keys.
            yaml = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
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
        checkLimit();
        // Editors on Windows may prepend a byte order mark; it is not part of the YAML.
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        return PolicyReader.read(text, sourceName, env, (int) maxFileBytes);
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

    private void checkLimit() throws PolicyException {
        if (limitProblem != null) {
            throw new PolicyException(limitProblem);
        }
    }

    private static PolicyException fileProblem(String source, String message) {
        return new PolicyException(new PolicyProblem(source, 0, "", message));
    }
}
