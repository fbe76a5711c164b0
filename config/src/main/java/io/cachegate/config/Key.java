package io.cachegate.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.DoubleFunction;
import java.util.function.DoublePredicate;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One policy key, defined once: its YAML name, type, default, allowed range, a one-line description,
 * and how a value is read and checked. Sections declare their keys as constants in a {@code *Keys}
 * class; readers read values with {@link Fields#get}, records take their defaults from
 * {@link #fallback()}, and {@code ExamplePolicyTest} holds {@code example-policy.yaml} to them. Whether a
 * reload applies the key is its {@link ReloadRule}: stated here, or by the nearest section around it.
 *
 * <p>A key checked against other sections (a backend, tenant or class name; a URL list) has no read
 * of its own: its section's reader reads it by {@link #name()}.
 *
 * @param <T> the value type the reader gets
 */
final class Key<T> {

    private final String name;
    private final String type;
    private final T fallback;
    private final String defaultText;
    private final String range;
    private final String doc;
    private final Function<Fields, T> read;
    private final String replacedBy;
    private final ReloadRule reload;

    private Key(String name, String type, T fallback, String defaultText, String range, String doc,
                Function<Fields, T> read) {
        this(name, type, fallback, defaultText, range, doc, read, null, null);
    }

    private Key(String name, String type, T fallback, String defaultText, String range, String doc,
                Function<Fields, T> read, String replacedBy, ReloadRule reload) {
        this.name = name;
        this.type = type;
        this.fallback = fallback;
        this.defaultText = defaultText;
        this.range = range;
        this.doc = doc;
        this.read = read;
        this.replacedBy = replacedBy;
        this.reload = reload;
    }

    static Key<String> string(String name, String fallback, String doc) {
        return new Key<>(name, "string", fallback, fallback, "", doc, f -> f.string(name, fallback));
    }

    /** A value that may be left out; {@code absent} says what leaving it out means. */
    static Key<Optional<String>> optional(String name, String absent, String doc) {
        return new Key<>(name, "string", Optional.empty(), absent, "", doc, f -> f.optional(name));
    }

    static Key<Optional<String>> required(String name, String doc) {
        return new Key<>(name, "string", null, "required", "", doc, f -> f.required(name));
    }

    static Key<Integer> integer(String name, int fallback, int min, int max, String doc) {
        return new Key<>(name, "integer", fallback, Integer.toString(fallback), range(min, max, Integer.MAX_VALUE), doc,
                f -> (int) f.integer(name, fallback, min, max));
    }

    /**
     * A whole number that may be left out or written {@code auto}: empty then, and {@code absent} says what
     * that means (e.g. found adaptively).
     */
    static Key<OptionalInt> optionalInteger(String name, String absent, int min, int max, String doc) {
        return new Key<>(name, "integer", OptionalInt.empty(), absent, range(min, max, Integer.MAX_VALUE) + " or auto",
                doc, f -> {
                    Optional<String> text = f.text(name).map(String::strip);
                    if (text.isEmpty() || text.get().isEmpty() || text.get().equalsIgnoreCase("auto")) {
                        return OptionalInt.empty();
                    }
                    if (!text.get().matches("-?[0-9][0-9_]*")) {
                        f.problem(name, Durations.quote(text.get()) + " is not a whole number or auto");
                        return OptionalInt.empty();
                    }
                    int before = f.reader().problemCount();
                    int value = (int) f.integer(name, min, min, max);
                    return f.reader().problemCount() == before ? OptionalInt.of(value) : OptionalInt.empty();
                });
    }

    /** A whole number that may be left out: empty then, and {@code absent} says what that means. */
    static Key<OptionalLong> optionalLong(String name, String absent, long min, long max, String doc) {
        return new Key<>(name, "integer", OptionalLong.empty(), absent, range(min, max, Long.MAX_VALUE), doc, f -> {
            if (!f.has(name)) {
                return OptionalLong.empty();
            }
            int before = f.reader().problemCount();
            long value = f.integer(name, min, min, max);
            return f.reader().problemCount() == before ? OptionalLong.of(value) : OptionalLong.empty();
        });
    }

    static Key<Long> longInteger(String name, long fallback, long min, long max, String doc) {
        return new Key<>(name, "integer", fallback, Long.toString(fallback), range(min, max, Long.MAX_VALUE), doc,
                f -> f.integer(name, fallback, min, max));
    }

    /** A size in bytes ({@code 4MiB}, {@code 10KB}, {@code 123}). */
    static Key<Long> size(String name, long fallback, long min, long max, String doc) {
        return new Key<>(name, "size", fallback, ByteSizes.format(fallback), sizeRange(min, max, Long.MAX_VALUE), doc,
                f -> f.size(name, fallback, min, max));
    }

    /**
     * A size that may be left out or written {@code auto}: empty then, and {@code absent} says what the gateway
     * works out instead.
     */
    static Key<OptionalLong> optionalSize(String name, String absent, long min, String doc) {
        return new Key<>(name, "size", OptionalLong.empty(), absent, sizeRange(min, Long.MAX_VALUE, Long.MAX_VALUE)
                + " or auto", doc, f -> {
                    Optional<String> text = f.text(name).map(String::strip);
                    if (text.isEmpty() || text.get().isEmpty() || text.get().equalsIgnoreCase("auto")) {
                        return OptionalLong.empty();
                    }
                    int before = f.reader().problemCount();
                    long value = f.size(name, min, min, Long.MAX_VALUE);
                    return f.reader().problemCount() == before ? OptionalLong.of(value) : OptionalLong.empty();
                });
    }

    static Key<Integer> intSize(String name, int fallback, int min, int max, String doc) {
        return new Key<>(name, "size", fallback, ByteSizes.format(fallback), sizeRange(min, max, Integer.MAX_VALUE),
                doc, f -> (int) f.size(name, fallback, min, max));
    }

    /** A duration longer than zero: a zero timeout or TTL would silently disable what it bounds. */
    static Key<Duration> duration(String name, Duration fallback, String doc) {
        return new Key<>(name, "duration", fallback, Durations.format(fallback), "more than 0s", doc,
                f -> f.duration(name, fallback));
    }

    /** A duration within {@code [min, max]}; zero is allowed when {@code min} is zero. */
    static Key<Duration> duration(String name, Duration fallback, Duration min, Duration max, String doc) {
        return new Key<>(name, "duration", fallback, Durations.format(fallback),
                Durations.format(min) + ".." + Durations.format(max), doc, f -> f.duration(name, fallback, min, max));
    }

    /** A positive duration that may be left out; {@code absent} says what leaving it out means. */
    static Key<Optional<Duration>> optionalDuration(String name, String absent, String doc) {
        return new Key<>(name, "duration", Optional.empty(), absent, "more than 0s", doc,
                f -> f.optionalDuration(name));
    }

    /** A duration within {@code [min, max]} that may be left out; {@code absent} says what leaving it out means. */
    static Key<Optional<Duration>> optionalDuration(String name, String absent, Duration min, Duration max,
                                                    String doc) {
        return new Key<>(name, "duration", Optional.empty(), absent,
                Durations.format(min) + ".." + Durations.format(max), doc,
                f -> f.has(name) ? Optional.ofNullable(f.duration(name, null, min, max)) : Optional.empty());
    }

    static Key<Boolean> bool(String name, boolean fallback, String doc) {
        return new Key<>(name, "boolean", fallback, Boolean.toString(fallback), "", doc, f -> f.bool(name, fallback));
    }

    /**
     * A number checked by {@code valid}; a value outside it is reported with {@code outside} (given the
     * value) and replaced by the default.
     */
    static Key<Double> decimal(String name, double fallback, String range, DoublePredicate valid,
                               DoubleFunction<String> outside, String doc) {
        return new Key<>(name, "number", fallback, decimalText(fallback), range, doc, f -> {
            double value = f.decimal(name, fallback);
            if (!valid.test(value)) {
                f.problem(name, outside.apply(value));
                return fallback;
            }
            return value;
        });
    }

    /** An enum constant, written in lower case; with {@code suggest}, a near miss gets a "did you mean". */
    static <E extends Enum<E>> Key<E> choice(String name, E fallback, boolean suggest, String doc) {
        String names = Arrays.stream(fallback.getDeclaringClass().getEnumConstants())
                .map(Key::lowerCase).collect(Collectors.joining(", "));
        return new Key<>(name, "one of " + names, fallback, lowerCase(fallback), "", doc,
                f -> f.choice(name, fallback, suggest));
    }

    /** A non-empty list of non-empty strings. */
    static Key<List<String>> strings(String name, List<String> fallback, String doc) {
        return new Key<>(name, "list of strings", fallback, listText(fallback), "at least one", doc,
                f -> f.strings(name, fallback));
    }

    /** A key with a read of its own (a check with its own message); {@code range} is what the check allows. */
    static <T> Key<T> of(String name, String type, T fallback, String range, String doc, Function<Fields, T> read) {
        return of(name, type, fallback, text(fallback), range, doc, read);
    }

    /** As {@link #of(String, String, Object, String, String, Function)}, saying what the default is in words. */
    static <T> Key<T> of(String name, String type, T fallback, String defaultText, String range, String doc,
                         Function<Fields, T> read) {
        return new Key<>(name, type, fallback, defaultText, range, doc, read);
    }

    /** A key its section's reader reads by name, because it is checked against other sections. */
    static <T> Key<T> readBySection(String name, String type, String defaultText, String doc) {
        return new Key<>(name, type, null, defaultText, "", doc, null);
    }

    /** This key as an older spelling of {@code key}, still read but no longer shown in the example. */
    Key<T> replacedBy(String key) {
        return new Key<>(name, type, fallback, defaultText, range, doc, read, key, reload);
    }

    /** This key applied by a reload, whatever its section's rule. */
    Key<T> live() {
        return new Key<>(name, type, fallback, defaultText, range, doc, read, replacedBy, ReloadRule.LIVE);
    }

    /** This key kept at its running value until a restart, whatever its section's rule. */
    Key<T> restart() {
        return new Key<>(name, type, fallback, defaultText, range, doc, read, replacedBy, ReloadRule.RESTART);
    }

    String name() {
        return name;
    }

    /** What the value is, for the reference: {@code integer}, {@code duration}, {@code one of a, b}, ... */
    String type() {
        return type;
    }

    /** The value used when the key is absent; null when it is required or its default is computed. */
    T fallback() {
        return fallback;
    }

    /** The default as the example file writes it ({@code 4MiB}, {@code 2s}), or what leaving it out means. */
    String defaultText() {
        return defaultText;
    }

    /** The values allowed beyond the type, e.g. {@code 0..65535}; empty when any value of the type is. */
    String range() {
        return range;
    }

    String doc() {
        return doc;
    }

    /** The key that replaces this older spelling, or null when this is the current spelling. */
    String replacedBy() {
        return replacedBy;
    }

    /** The rule this key states, or null when it takes its section's. */
    ReloadRule reload() {
        return reload;
    }

    /** False when the section reader reads this key itself (see {@link #readBySection}). */
    boolean readable() {
        return read != null;
    }

    /** Reads this key from {@code fields}: the default when absent, after reporting a problem when invalid. */
    T read(Fields fields) {
        if (read == null) {
            throw new IllegalStateException(name + " is read by its section's reader");
        }
        return read.apply(fields);
    }

    @Override
    public String toString() {
        return name;
    }

    private static String range(long min, long max, long unbounded) {
        return max == unbounded ? "at least " + min : min + ".." + max;
    }

    private static String sizeRange(long min, long max, long unbounded) {
        return max == unbounded ? "at least " + ByteSizes.format(min)
                : ByteSizes.format(min) + ".." + ByteSizes.format(max);
    }

    /** A default as the example file writes it. */
    private static String text(Object value) {
        if (value instanceof Duration duration) {
            return Durations.format(duration);
        }
        if (value instanceof Double number) {
            return decimalText(number);
        }
        if (value instanceof Collection<?> values) {
            return listText(values.stream().map(String::valueOf).toList());
        }
        if (value instanceof Enum<?> constant) {
            return lowerCase(constant);
        }
        if (value instanceof Optional<?> optional) {
            return optional.map(Key::text).orElse("none");
        }
        return String.valueOf(value);
    }

    /** {@code 1.5}, {@code 1000}, {@code 0}: as short as the example writes it. */
    static String decimalText(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    private static String lowerCase(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /** {@code ["*"]}, {@code [stop]}: YAML flow lists, quoting what a plain scalar cannot hold. */
    static String listText(Collection<String> values) {
        return values.stream().map(v -> v.matches("[A-Za-z0-9_./-]+") ? v : '"' + v + '"')
                .collect(Collectors.joining(", ", "[", "]"));
    }
}
