package io.cachegate.config;

import com.google.re2j.Pattern;
import java.util.Objects;

/**
 * One of the policy's own sensitive-data patterns ({@code cache.sensitive_patterns}): a name the logs may show
 * and a regular expression compiled once with RE2/J, whose matching time is linear in the text, so no pattern a
 * policy holds can backtrack catastrophically on a hostile prompt.
 */
public final class SensitivePattern {

    private final String name;
    private final Pattern regex;

    /** Throws {@link com.google.re2j.PatternSyntaxException} when {@code regex} is not valid RE2 syntax. */
    public SensitivePattern(String name, String regex) {
        this.name = Objects.requireNonNull(name, "name");
        this.regex = Pattern.compile(Objects.requireNonNull(regex, "regex"));
    }

    public String name() {
        return name;
    }

    /** The compiled pattern; {@link Pattern#matcher(CharSequence)} is safe to call from any thread. */
    public Pattern regex() {
        return regex;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SensitivePattern p && name.equals(p.name) && regex.pattern().equals(p.regex.pattern());
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + regex.pattern().hashCode();
    }

    @Override
    public String toString() {
        return name + "=" + regex.pattern();
    }
}
