package io.cachegate.gateway.server;

/**
 * The strict grammar of a request line and a Host value, checked character by character: on every request, where
 * the regular expressions that said the same were ~3% of a proxied request's CPU (JFR, a proxying run).
 * {@code HeadSyntaxTest} holds those expressions and compares the two on random input.
 */
final class HeadSyntax {

    private static final String HTTP_1 = " HTTP/1.";

    private HeadSyntax() {
    }

    /**
     * A request line read strictly (RFC 9112 3): a method token, one space, a target without spaces or controls, one
     * space, and HTTP/1.0 or HTTP/1.1 exactly. {@code line} holds one char per byte (0–255).
     */
    static boolean requestLine(CharSequence line) {
        int n = line.length();
        int i = 0;
        while (i < n && tchar(line.charAt(i))) {
            i++;
        }
        if (i == 0 || i == n || line.charAt(i) != ' ') {
            return false;
        }
        int target = ++i;
        while (i < n && targetChar(line.charAt(i))) {
            i++;
        }
        if (i == target || n - i != HTTP_1.length() + 1) {
            return false;
        }
        for (int j = 0; j < HTTP_1.length(); j++) {
            if (line.charAt(i + j) != HTTP_1.charAt(j)) {
                return false;
            }
        }
        char minor = line.charAt(n - 1);
        return minor == '0' || minor == '1';
    }

    /** A Host value: a name or IPv4 address, or a bracketed IPv6 literal, with an optional port (RFC 9110 7.2). */
    static boolean host(String value) {
        int n = value.length();
        int i = 0;
        if (n > 0 && value.charAt(0) == '[') {
            i = 1;
            while (i < n && ipv6Char(value.charAt(i))) {
                i++;
            }
            if (i == 1 || i == n || value.charAt(i) != ']') {
                return false;
            }
            i++;
        } else {
            while (i < n && regNameChar(value.charAt(i))) {
                i++;
            }
        }
        if (i == n) {
            return true;
        }
        if (value.charAt(i) != ':' || n - i - 1 > 5) {
            return false;
        }
        for (int j = i + 1; j < n; j++) {
            if (!digit(value.charAt(j))) {
                return false;
            }
        }
        return true;
    }

    private static boolean tchar(char c) {
        return alphaNumeric(c) || "!#$%&'*+.^_`|~-".indexOf(c) >= 0;
    }

    private static boolean targetChar(char c) {
        return (c >= 0x21 && c <= 0x7e) || (c >= 0x80 && c <= 0xff);
    }

    private static boolean ipv6Char(char c) {
        return digit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f') || c == ':' || c == '.';
    }

    private static boolean regNameChar(char c) {
        return alphaNumeric(c) || "._~!$&'()*+,;=%-".indexOf(c) >= 0;
    }

    private static boolean alphaNumeric(char c) {
        return digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }
}
