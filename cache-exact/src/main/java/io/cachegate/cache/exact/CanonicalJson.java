package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Renders a JSON tree in one fixed spelling: object keys sorted, no insignificant whitespace, each
 * number in a single form whatever its input spelling, strings with a fixed set of escapes. Written
 * by hand rather than with a Jackson generator so every byte is defined by CANONICAL_FORM.md and a
 * lone surrogate can neither throw nor collapse into another string.
 */
final class CanonicalJson {

    /** Plain notation up to this many digits on either side of the point; scientific beyond. */
    private static final int PLAIN_DIGITS = 21;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CanonicalJson() {
    }

    static byte[] render(JsonNode node) {
        StringBuilder out = new StringBuilder(256);
        write(node, out);
        // Every lone surrogate was escaped, so this encoding is lossless.
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                List<String> names = new ArrayList<>(node.size());
                for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                    names.add(it.next());
                }
                names.sort(null);
                out.append('{');
                for (int i = 0; i < names.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    string(names.get(i), out);
                    out.append(':');
                    write(node.get(names.get(i)), out);
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(node.get(i), out);
                }
                out.append(']');
            }
            case STRING -> string(node.textValue(), out);
            case NUMBER -> out.append(number(node));
            case BOOLEAN -> out.append(node.booleanValue() ? "true" : "false");
            case NULL, MISSING -> out.append("null");
            default -> throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
        }
    }

    static String number(JsonNode node) {
        if (node.isFloatingPointNumber() && !node.isBigDecimal()) {
            double value = node.doubleValue();
            // A double parser turns 1e400 into Infinity; the backend's (Python's) does the same.
            if (Double.isNaN(value)) {
                return "NaN";
            }
            if (Double.isInfinite(value)) {
                return value > 0 ? "Infinity" : "-Infinity";
            }
        }
        return number(node.decimalValue());
    }

    /** One spelling per numeric value: 1, 1.0, 1e0 and 10e-1 all render as {@code 1}. */
    static String number(BigDecimal value) {
        if (value.signum() == 0) {
            return "0";
        }
        BigDecimal stripped = value.stripTrailingZeros();
        int scale = stripped.scale();
        int integerDigits = stripped.precision() - scale;
        if (scale <= PLAIN_DIGITS && integerDigits <= PLAIN_DIGITS) {
            return stripped.toPlainString();
        }
        // The unscaled value has no trailing zeros after stripping, so this form is unique too.
        return stripped.unscaledValue() + "e" + (-(long) scale);
    }

    static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                unicodeEscape(c, out);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                unicodeEscape(c, out);
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static void unicodeEscape(char c, StringBuilder out) {
        out.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF])
                .append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
    }
}
