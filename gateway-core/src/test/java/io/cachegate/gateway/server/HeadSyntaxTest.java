package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written grammar against the regular expressions it replaced, which say what it must accept. */
class HeadSyntaxTest {

    private static final Pattern REQUEST_LINE =
            Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\\x21-\\x7e\\x80-\\xff]+ HTTP/1\\.[01]");
    private static final Pattern HOST = Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:[0-9]{0,5})?");

    @Test
    void requestLine_examples() {
        assertThat(HeadSyntax.requestLine("POST /v1/chat/completions HTTP/1.1")).isTrue();
        assertThat(HeadSyntax.requestLine("GET /health HTTP/1.0")).isTrue();
        assertThat(HeadSyntax.requestLine("GET  /health HTTP/1.1")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health\tHTTP/1.1")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health http/1.1")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health HTTP/1.2")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health HTTP/2.0")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health")).isFalse();
        assertThat(HeadSyntax.requestLine("GET /health HTTP/1.1 ")).isFalse();
        assertThat(HeadSyntax.requestLine(" GET /health HTTP/1.1")).isFalse();
        assertThat(HeadSyntax.requestLine("")).isFalse();
    }

    @Test
    void host_examples() {
        assertThat(HeadSyntax.host("api.example.com")).isTrue();
        assertThat(HeadSyntax.host("127.0.0.1:8080")).isTrue();
        assertThat(HeadSyntax.host("[::1]:443")).isTrue();
        assertThat(HeadSyntax.host("")).isTrue();
        assertThat(HeadSyntax.host("a:")).isTrue();
        assertThat(HeadSyntax.host("a:123456")).isFalse();
        assertThat(HeadSyntax.host("a b")).isFalse();
        assertThat(HeadSyntax.host("[]")).isFalse();
        assertThat(HeadSyntax.host("[::1")).isFalse();
        assertThat(HeadSyntax.host("a@b")).isFalse();
        assertThat(HeadSyntax.host("a:1:2")).isFalse();
    }

    @Test
    void requestLine_agreesWithTheExpression_onRandomLines() {
        SplittableRandom random = new SplittableRandom(16);
        String[] parts = {"GET", "POST", "get", " ", "  ", "\t", "/v1", "/", "?a=b", "HTTP/1.1", "HTTP/1.0", "HTTP/1.",
            "HTTP/2.0", "HTTP/1.11", "\u0080", "\u00ff", "\u0100", "\u007f", "\u0000", "x", "@", "[", "\r"};
        String[] methods = {"GET", "POST", "M-SEARCH", "get", "", "G@T", "\u00e9"};
        String[] spaces = {" ", " ", " ", "  ", "\t", ""};
        String[] versions = {"HTTP/1.1", "HTTP/1.0", "HTTP/1.", "HTTP/1.2", "http/1.1", "HTTP/1.1 ", "HTTP/11", ""};
        int valid = 0;
        for (int n = 0; n < 200_000; n++) {
            String line = n % 2 == 0 ? random(random, parts, 7)
                    : methods[random.nextInt(methods.length)] + spaces[random.nextInt(spaces.length)]
                    + random(random, parts, 3) + spaces[random.nextInt(spaces.length)]
                    + versions[random.nextInt(versions.length)];
            valid += REQUEST_LINE.matcher(line).matches() ? 1 : 0;
            assertThat(HeadSyntax.requestLine(line)).as("request line %s", escaped(line))
                    .isEqualTo(REQUEST_LINE.matcher(line).matches());
        }
        assertThat(valid).as("lines the expression accepts").isGreaterThan(1_000);
    }

    @Test
    void host_agreesWithTheExpression_onRandomValues() {
        SplittableRandom random = new SplittableRandom(17);
        String[] parts = {"a", "Z", "0", "9", ".", ":", "[", "]", "::1", "f", "G", "%", "-", "_", "~", "!", "@", " ",
            "/", "12345", "123456", "\u00e9", "(", ";", "="};
        int valid = 0;
        for (int n = 0; n < 200_000; n++) {
            String host = random(random, parts, 6);
            valid += HOST.matcher(host).matches() ? 1 : 0;
            assertThat(HeadSyntax.host(host)).as("host %s", escaped(host)).isEqualTo(HOST.matcher(host).matches());
        }
        assertThat(valid).as("hosts the expression accepts").isGreaterThan(5_000);
    }

    private static String random(SplittableRandom random, String[] parts, int max) {
        StringBuilder out = new StringBuilder();
        for (int i = random.nextInt(max + 1); i > 0; i--) {
            out.append(parts[random.nextInt(parts.length)]);
        }
        return out.toString();
    }

    private static String escaped(String s) {
        StringBuilder out = new StringBuilder();
        s.chars().forEach(c -> out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return out.toString();
    }
}
