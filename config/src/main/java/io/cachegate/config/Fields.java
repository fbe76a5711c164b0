package io.cachegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * One YAML mapping at a known path, with typed getters that fall back to a default and record a
 * problem (quoting the bad value) when a value is present but invalid.
 */
final class Fields {

    private final NodeReader reader;
    private final String path;
    private final Node node;
    private final Map<String, Node> values;

    Fields(NodeReader reader, String path, Node node, Map<String, Node> values) {
        this.reader = reader;
        this.path = path;
        this.node = node;
        this.values = values;
    }

    static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    NodeReader reader() {
        return reader;
    }

    String path(String key) {
        return join(path, key);
    }

    Node node(String key) {
        return values.get(key);
    }

    int line() {
        return NodeReader.line(node);
    }

    /** The line of the value, or of this mapping when the key is absent (for "is required"). */
    int line(String key) {
        return NodeReader.line(values.containsKey(key) ? values.get(key) : node);
    }

    /** The keys present, in file order. */
    Set<String> keys() {
        return values.keySet();
    }

    boolean has(String key) {
        return !NodeReader.isNull(values.get(key));
    }

    void problem(String key, String message) {
        reader.problem(line(key), path(key), message);
    }

    /** The value of {@code key}: its default when absent, the default after reporting a problem when invalid. */
    <T> T get(Key<T> key) {
        return key.read(this);
    }

    /** A nested mapping holding only {@code section}'s keys; empty when absent, null after reporting a wrong type. */
    Fields section(Section section) {
        return section(section.name(), section.names());
    }

    /** A nested mapping; empty when absent, null after reporting a wrong type. */
    Fields section(String key, Set<String> allowed) {
        return reader.fields(values.get(key), path(key), allowed);
    }

    /** Items of a nested list; empty when absent, null after reporting a wrong type. */
    List<Node> items(String key) {
        return reader.items(values.get(key), path(key));
    }

    Optional<String> text(String key) {
        return Optional.ofNullable(reader.text(values.get(key), path(key)));
    }

    String string(String key, String fallback) {
        String value = text(key).orElse(fallback);
        if (value.isBlank() && has(key)) {
            problem(key, "must not be empty");
            return fallback;
        }
        return value;
    }

    /** A present, non-empty value; an empty value (e.g. {@code ${TOKEN:-}}) counts as absent. */
    Optional<String> optional(String key) {
        return text(key).filter(value -> !value.isBlank());
    }

    /** A value that must be present and non-empty. */
    Optional<String> required(String key) {
        if (!has(key)) {
            problem(key, "is required");
            return Optional.empty();
        }
        Optional<String> value = text(key);
        if (value.isPresent() && value.get().isBlank()) {
            problem(key, "must not be empty");
            return Optional.empty();
        }
        return value;
    }

    long integer(String key, long fallback, long min, long max) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text.get().strip().replace("_", ""));
        } catch (NumberFormatException e) {
            problem(key, Durations.quote(text.get()) + " is not a whole number");
            return fallback;
        }
        return inRange(key, value, fallback, min, max);
    }

    long size(String key, long fallback, long min, long max) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            return inRange(key, ByteSizes.parse(text.get()), fallback, min, max);
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return fallback;
        }
    }

    private long inRange(String key, long value, long fallback, long min, long max) {
        if (value < min || value > max) {
            problem(key, value + " is out of range " + min + ".." + max);
            return fallback;
        }
        return value;
    }

    Duration duration(String key, Duration fallback) {
        return optionalDuration(key).orElse(fallback);
    }

    /** A positive duration: a zero timeout or TTL would silently disable what it bounds. */
    Optional<Duration> optionalDuration(String key) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            Duration value = Durations.parse(text.get());
            if (value.isZero()) {
                problem(key, Durations.quote(text.get()) + " must be longer than zero");
                return Optional.empty();
            }
            return Optional.of(value);
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A duration within {@code [min, max]}; zero is allowed when {@code min} is zero (a backoff or a
     * hold time of zero is meaningful, a timeout of zero is not).
     */
    Duration duration(String key, Duration fallback, Duration min, Duration max) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        Duration value;
        try {
            value = Durations.parse(text.get());
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return fallback;
        }
        if (value.isZero() && !min.isZero()) {
            problem(key, Durations.quote(text.get()) + " must be longer than zero");
            return fallback;
        }
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            problem(key, Durations.quote(text.get()) + " is out of range " + Durations.format(min) + ".."
                    + Durations.format(max));
            return fallback;
        }
        return value;
    }

    boolean bool(String key, boolean fallback) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        return switch (text.get().strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> {
                problem(key, Durations.quote(text.get()) + " is not a boolean (true or false)");
                yield fallback;
            }
        };
    }

    /** A cosine similarity threshold in (0, 1]; empty when absent or invalid (reported). */
    Optional<Double> similarity(String key) {
        if (!has(key)) {
            return Optional.empty();
        }
        double value = decimal(key, Double.NaN);
        if (Double.isNaN(value)) {
            return Optional.empty();
        }
        if (!(value > 0 && value <= 1)) {
            problem(key, value + " is outside (0, 1]; similarity 1 means identical");
            return Optional.empty();
        }
        return Optional.of(value);
    }

    double decimal(String key, double fallback) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            double value = Double.parseDouble(text.get().strip());
            if (Double.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problem(key, Durations.quote(text.get()) + " is not a number");
        return fallback;
    }

    /** An enum constant written in lower case in YAML, e.g. {@code memory} for {@code MEMORY}. */
    <E extends Enum<E>> E choice(String key, E fallback) {
        return choice(key, fallback, false);
    }

    /** As {@link #choice(String, Enum)}; with {@code suggest}, a near miss gets a "did you mean". */
    <E extends Enum<E>> E choice(String key, E fallback, boolean suggest) {
        Optional<String> text = text(key);
        if (text.isEmpty()) {
            return fallback;
        }
        List<String> names = new ArrayList<>();
        for (E constant : fallback.getDeclaringClass().getEnumConstants()) {
            String name = constant.name().toLowerCase(Locale.ROOT);
            if (name.equals(text.get().strip().toLowerCase(Locale.ROOT))) {
                return constant;
            }
            names.add(name);
        }
        String hint = suggest ? Suggestions.didYouMean(text.get().strip().toLowerCase(Locale.ROOT), names) : "";
        problem(key, Durations.quote(text.get()) + " is not one of " + String.join(", ", names) + hint);
        return fallback;
    }

    /** A name that must be one of {@code known}; reported with the closest candidate when it is not. */
    Optional<String> reference(String key, Collection<String> known, String kind) {
        Optional<String> name = optional(key);
        if (name.isPresent() && !known.contains(name.get())) {
            problem(key, "no " + kind + " named " + Durations.quote(name.get())
                    + Suggestions.didYouMean(name.get(), known));
            return Optional.empty();
        }
        return name;
    }

    /** A list of non-empty strings; the fallback when absent or wrong, a problem when empty. */
    List<String> strings(String key, List<String> fallback) {
        List<Node> items = items(key);
        if (items == null || !has(key)) {
            return fallback;
        }
        if (items.isEmpty()) {
            problem(key, "must list at least one value");
            return fallback;
        }
        List<String> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            String itemPath = path(key) + "[" + i + "]";
            Node item = items.get(i);
            String value = reader.text(item, itemPath);
            if (NodeReader.isNull(item) || value != null && value.isBlank()) {
                reader.problem(item, itemPath, "must not be empty");
            } else if (value != null) {
                out.add(value);
            }
        }
        return out;
    }
}
