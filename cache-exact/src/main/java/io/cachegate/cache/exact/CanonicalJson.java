package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Renders a JSON tree in one fixed spelling: object keys sorted, no insignificant whitespace, each
 * number in a single form whatever its input spelling, strings with a fixed set of escapes. Written
 * by hand rather than with a Jackson generator so every byte is defined by CANONICAL_FORM.md and a
 * lone surrogate can neither throw nor collapse into another string. It writes UTF-8 bytes as it goes (it is
 * on every cacheable request's path): rendering to a String and encoding that cost two more copies of the form.
 */
final class CanonicalJson {

    /** Plain notation up to this many digits on either side of the point; scientific beyond. */
    private static final int PLAIN_DIGITS = 21;
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    /** A thread's scratch buffer is kept up to this size; a larger form grows one of its own, dropped after it. */
    private static final int KEPT_SCRATCH_BYTES = 64 * 1024;
    // Rendering starts in the thread's scratch buffer (an event loop renders one form after another), so a form
    // costs one allocation, its result, instead of a buffer grown by doubling on every request.
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[4096]);

    private CanonicalJson() {
    }

    static byte[] render(JsonNode node) {
        Utf8 out = new Utf8(SCRATCH.get());
        write(node, out);
        if (out.buf.length <= KEPT_SCRATCH_BYTES) {
            SCRATCH.set(out.buf);
        }
        return out.bytes();
    }

    private static void write(JsonNode node, Utf8 out) {
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
            case NUMBER -> out.ascii(number(node));
            case BOOLEAN -> out.ascii(node.booleanValue() ? "true" : "false");
            case NULL, MISSING -> out.ascii("null");
            default -> throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
        }
    }

    static String number(JsonNode node) {
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            // What the BigDecimal rule below gives any long (at most 19 digits: plain), without making one.
            return Long.toString(node.longValue());
        }
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

    private static void string(String text, Utf8 out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
                out.append(c);
            } else if (c < 0x20) {
                unicodeEscape(c, out);
            } else if (c < 0x80) {
                out.append(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.codePoint(Character.toCodePoint(c, text.charAt(++i)));
            } else if (Character.isSurrogate(c)) {
                // A lone surrogate has no UTF-8 form: escaped, it stays distinct from every other string.
                unicodeEscape(c, out);
            } else {
                out.codePoint(c);
            }
        }
        out.append('"');
    }

    private static void unicodeEscape(char c, Utf8 out) {
        out.append('\\');
        out.append('u');
        out.append(HEX[c >> 12 & 0xF]);
        out.append(HEX[c >> 8 & 0xF]);
        out.append(HEX[c >> 4 & 0xF]);
        out.append(HEX[c & 0xF]);
    }

    /** A growing UTF-8 byte buffer; it is only ever given valid code points (lone surrogates are escaped first). */
    private static final class Utf8 {
        private byte[] buf;
        private int size;

        Utf8(byte[] scratch) {
            this.buf = scratch;
        }

        /** {@code c} below 0x80. */
        void append(char c) {
            if (size == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            buf[size++] = (byte) c;
        }

        /** Text of ASCII characters only (numbers, literals). */
        void ascii(String text) {
            for (int i = 0; i < text.length(); i++) {
                append(text.charAt(i));
            }
        }

        void codePoint(int cp) {
            if (size + 4 > buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            if (cp < 0x800) {
                buf[size++] = (byte) (0xC0 | cp >> 6);
            } else if (cp < 0x10000) {
                buf[size++] = (byte) (0xE0 | cp >> 12);
                buf[size++] = (byte) (0x80 | cp >> 6 & 0x3F);
            } else {
                buf[size++] = (byte) (0xF0 | cp >> 18);
                buf[size++] = (byte) (0x80 | cp >> 12 & 0x3F);
                buf[size++] = (byte) (0x80 | cp >> 6 & 0x3F);
            }
            buf[size++] = (byte) (0x80 | cp & 0x3F);
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, size);
        }
    }
}
