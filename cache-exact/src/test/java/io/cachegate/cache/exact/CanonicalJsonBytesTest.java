package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The canonical form is written as UTF-8 bytes directly (and integers without a BigDecimal); these bytes are hashed
 * into every cache key, so they must be exactly those of the earlier writer (a String, then its UTF-8 encoding),
 * kept here as the reference. Any difference would invalidate every cached entry.
 */
class CanonicalJsonBytesTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    // Every class of character the writer treats apart: plain, quote and backslash, control characters, DEL,
    // two- and three-byte UTF-8, a valid surrogate pair (an emoji), lone high and low surrogates.
    private static final String[] PIECES = {"a", "Z", " ", "\"", "\\", "\n", "\u0000", "\u001f", "\u007f", "é",
        "\u07ff", "\u0800", "日本", "\uffff", "\ud83d\ude00", "\ud83d", "\ude00", "x\ud800", "/", "1e5"};

    @Test
    void render_randomTrees_sameBytesAsStringThenUtf8() {
        Random random = new Random(16);
        for (int i = 0; i < 5_000; i++) {
            JsonNode tree = tree(random, 3);
            assertThat(CanonicalJson.render(tree)).as("tree %s", tree).isEqualTo(reference(tree));
        }
    }

    @Test
    void render_integers_sameSpellingAsTheDecimalRule() {
        long[] values = {0, 1, -1, 10, 1000, 1_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE, 4096, -70};
        for (long v : values) {
            assertThat(CanonicalJson.render(NODES.numberNode(v))).isEqualTo(reference(NODES.numberNode(v)));
            assertThat(CanonicalJson.render(NODES.numberNode(BigInteger.valueOf(v))))
                    .isEqualTo(reference(NODES.numberNode(BigInteger.valueOf(v))));
        }
        JsonNode huge = NODES.numberNode(new BigInteger("123456789012345678901234567890"));
        assertThat(new String(CanonicalJson.render(huge), StandardCharsets.UTF_8)).isEqualTo("12345678901234567890123456789e1");
    }

    private static JsonNode tree(Random random, int depth) {
        int kind = random.nextInt(depth > 0 ? 8 : 6);
        return switch (kind) {
            case 0 -> NODES.textNode(text(random));
            case 1 -> NODES.numberNode(random.nextLong() >> random.nextInt(64));
            case 2 -> NODES.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 3 -> NODES.numberNode(new BigDecimal(new BigInteger(80, random), random.nextInt(30) - 15));
            case 4 -> NODES.booleanNode(random.nextBoolean());
            case 5 -> NODES.nullNode();
            case 6 -> {
                ObjectNode o = NODES.objectNode();
                for (int i = random.nextInt(5); i > 0; i--) {
                    o.set(text(random), tree(random, depth - 1));
                }
                yield o;
            }
            default -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = random.nextInt(5); i > 0; i--) {
                    a.add(tree(random, depth - 1));
                }
                yield a;
            }
        };
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return s.toString();
    }

    // The writer as it was before it wrote bytes itself (commit 2de4330), the reference for every byte.
    private static byte[] reference(JsonNode node) {
        StringBuilder out = new StringBuilder();
        write(node, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                List<String> names = new ArrayList<>();
                for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                    names.add(it.next());
                }
                names.sort(null);
                out.append('{');
                for (int i = 0; i < names.size(); i++) {
                    out.append(i > 0 ? "," : "");
                    string(names.get(i), out);
                    out.append(':');
                    write(node.get(names.get(i)), out);
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    out.append(i > 0 ? "," : "");
                    write(node.get(i), out);
                }
                out.append(']');
            }
            case STRING -> string(node.textValue(), out);
            case NUMBER -> out.append(node.isFloatingPointNumber() && !node.isBigDecimal()
                    && !Double.isFinite(node.doubleValue()) ? CanonicalJson.number(node)
                    : CanonicalJson.number(node.decimalValue()));
            case BOOLEAN -> out.append(node.booleanValue());
            default -> out.append("null");
        }
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
