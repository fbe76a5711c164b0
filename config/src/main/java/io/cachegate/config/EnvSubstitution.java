package io.cachegate.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Expands {@code ${VAR}} and {@code ${VAR:-default}} in scalar values; <code>$${</code> stays a literal
 * <code>${</code>. As in the shell, the default also applies when the variable is set but empty.
 */
final class EnvSubstitution {

    private final Function<String, String> env;

    EnvSubstitution(Function<String, String> env) {
        this.env = Objects.requireNonNull(env, "env");
    }

    /**
     * The expanded text, or {@code null} when a variable is missing or a reference is malformed; each
     * such problem is added to {@code errors} as a message.
     */
    String expand(String text, List<String> errors) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        boolean failed = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '$' && text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (c == '$' && text.startsWith("${", i)) {
                int end = text.indexOf('}', i + 2);
                if (end < 0) {
                    errors.add("unterminated ${ in " + Durations.quote(text) + " (write $${ for a literal ${)");
                    return null;
                }
                String value = resolve(text.substring(i + 2, end), errors);
                failed |= value == null;
                out.append(value == null ? "" : value);
                i = end + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return failed ? null : out.toString();
    }

    private String resolve(String reference, List<String> errors) {
        int sep = reference.indexOf(":-");
        String name = sep < 0 ? reference : reference.substring(0, sep);
        if (!isName(name)) {
            errors.add(Durations.quote("${" + reference + "}") + " is not a valid variable reference"
                    + " (use ${NAME} or ${NAME:-default})");
            return null;
        }
        String value = env.apply(name);
        if (sep >= 0 && (value == null || value.isEmpty())) {
            return reference.substring(sep + 2);
        }
        if (value == null) {
            errors.add("environment variable " + name + " is not set");
        }
        return value;
    }

    private static boolean isName(String name) {
        if (name.isEmpty() || Character.isDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return true;
    }
}
