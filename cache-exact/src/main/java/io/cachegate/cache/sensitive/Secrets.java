package io.cachegate.cache.sensitive;

import static io.cachegate.cache.sensitive.Chars.startsWith;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Credentials by their shape: vendor API keys by prefix and a long enough body (so "sk-learn" is not one), AWS
 * access key ids ({@code AKIA}/{@code ASIA} and 16 characters), AWS secret access keys (40 characters of base64
 * with both cases and a digit, {@code /} or {@code +}, shortly after a word starting {@code secret} or
 * {@code aws_secret} or after an access key id: the shape alone would also fit ordinary tokens), JWTs (three
 * base64url parts whose first decodes to a JSON header naming its {@code alg}) and PEM private keys.
 */
final class Secrets {

    /** A vendor prefix and the body that must follow it: at least {@code minBody} characters of its alphabet. */
    private record Prefix(String prefix, int minBody, boolean dashes) {
    }

    /** By first letter, so a token start costs one switch unless it begins with one of these letters. */
    private static final Prefix[] S = {new Prefix("sk-", 20, true), new Prefix("sk_live_", 16, false),
        new Prefix("sk_test_", 16, false)};
    private static final Prefix[] R = {new Prefix("rk_live_", 16, false), new Prefix("rk_test_", 16, false)};
    private static final Prefix[] G = {new Prefix("ghp_", 30, false), new Prefix("gho_", 30, false),
        new Prefix("ghu_", 30, false), new Prefix("ghs_", 30, false), new Prefix("ghr_", 30, false),
        new Prefix("github_pat_", 22, false), new Prefix("glpat-", 20, true)};
    private static final Prefix[] X = {new Prefix("xoxb-", 10, true), new Prefix("xoxa-", 10, true),
        new Prefix("xoxp-", 10, true), new Prefix("xoxr-", 10, true), new Prefix("xoxs-", 10, true)};
    private static final Prefix[] A = {new Prefix("AIza", 35, true)};
    private static final Prefix[] H = {new Prefix("hf_", 30, false)};
    private static final String PEM_BEGIN = "-----BEGIN ";
    private static final String PEM_END = "-----END ";
    private static final String PEM_PRIVATE = "PRIVATE KEY-----";
    private static final int MAX_JWT_HEADER = 2048;
    private static final int AWS_SECRET_LENGTH = 40;
    /** How far after {@code secret...} or an access key id the secret key may start ({@code " = \""}, " is "). */
    private static final int AWS_SECRET_REACH = 48;

    private Secrets() {
    }

    /**
     * The secrets that start at {@code start}, a token start with a letter. Returns where the scan goes on: past
     * a JWT-like run already read, so a hostile run of {@code eyJ-eyJ-...} is read once, not once per start.
     */
    static int at(CharSequence text, int start, Hits found) {
        char c = text.charAt(start);
        Prefix[] prefixes = switch (c) {
            case 's' -> S;
            case 'r' -> R;
            case 'g' -> G;
            case 'x' -> X;
            case 'h' -> H;
            case 'A' -> {
                if (awsKeyId(text, start)) {
                    if (found.wants(SensitiveKind.AWS_ACCESS_KEY)) {
                        found.found(SensitiveKind.AWS_ACCESS_KEY, start, start + 20);
                    }
                    awsSecretKey(text, start + 20, found); // the pair is usually written together
                }
                yield A;
            }
            default -> null;
        };
        // "secret...", "SecretAccessKey", "aws_secret_access_key", "AWSSecretKey": a few fixed places, not a search.
        if ((c | 0x20) == 's' && secretAt(text, start)
                || (c | 0x20) == 'a' && (secretAt(text, start + 3) || secretAt(text, start + 4))) {
            awsSecretKey(text, Chars.wordEnd(text, start), found);
        }
        if (c == 'e') {
            return jwt(text, start, found);
        }
        if (prefixes != null && found.wants(SensitiveKind.API_KEY)) {
            Prefix p = vendorKey(text, start, prefixes);
            if (p != null) {
                // The whole key, read once: the scan goes on after it, so "sk-...-sk-..." stays linear.
                int end = start + p.prefix().length();
                while (end < text.length() && (Chars.alnum(text.charAt(end)) || text.charAt(end) == '_'
                        || p.dashes() && text.charAt(end) == '-')) {
                    end++;
                }
                found.found(SensitiveKind.API_KEY, start, end);
                return end;
            }
        }
        return start + 1;
    }

    /** The prefix whose key starts at {@code start}; null when none does. */
    private static Prefix vendorKey(CharSequence text, int start, Prefix[] prefixes) {
        for (Prefix p : prefixes) {
            if (startsWith(text, start, p.prefix())) {
                int from = start + p.prefix().length();
                int i = from;
                // Only as far as the shortest body: "sk-sk-sk-..." costs a constant per start, not its length.
                int n = Math.min(text.length(), from + p.minBody());
                while (i < n && (Chars.alnum(text.charAt(i)) || text.charAt(i) == '_'
                        || p.dashes() && text.charAt(i) == '-')) {
                    i++;
                }
                if (i - from >= p.minBody()) {
                    return p;
                }
            }
        }
        return null;
    }

    /** {@code AKIA} (long-term) or {@code ASIA} (temporary) and 16 upper-case letters or digits. */
    private static boolean awsKeyId(CharSequence text, int start) {
        if (!startsWith(text, start, "AKIA") && !startsWith(text, start, "ASIA")) {
            return false;
        }
        int end = start + 20;
        if (end > text.length()) {
            return false;
        }
        for (int i = start + 4; i < end; i++) {
            char c = text.charAt(i);
            if (!Chars.upper(c) && !Chars.digit(c)) {
                return false;
            }
        }
        return Chars.endsAt(text, end);
    }

    /** Whether {@code secret}, in any case, is at {@code i}. */
    private static boolean secretAt(CharSequence text, int i) {
        return i + 6 <= text.length() && (text.charAt(i) | 0x20) == 's' && (text.charAt(i + 1) | 0x20) == 'e'
                && (text.charAt(i + 2) | 0x20) == 'c' && (text.charAt(i + 3) | 0x20) == 'r'
                && (text.charAt(i + 4) | 0x20) == 'e' && (text.charAt(i + 5) | 0x20) == 't';
    }

    /** An AWS secret access key starting within {@link #AWS_SECRET_REACH} characters of {@code from}. */
    private static void awsSecretKey(CharSequence text, int from, Hits found) {
        if (!found.wants(SensitiveKind.AWS_SECRET_KEY)) {
            return;
        }
        int n = text.length();
        int last = Math.min(n, from + AWS_SECRET_REACH);
        for (int i = from; i < last; i++) {
            if (!secretChar(text.charAt(i)) || i > 0 && secretChar(text.charAt(i - 1))) {
                continue;
            }
            int end = i;
            while (end < n && end - i <= AWS_SECRET_LENGTH && secretChar(text.charAt(end))) {
                end++;
            }
            if (end - i == AWS_SECRET_LENGTH && (end == n || text.charAt(end) != '=') && random(text, i, end)) {
                found.found(SensitiveKind.AWS_SECRET_KEY, i, end);
                return;
            }
            i = end;
        }
    }

    /** The alphabet of AWS secret keys: base64 without padding. */
    private static boolean secretChar(char c) {
        return Chars.alnum(c) || c == '/' || c == '+';
    }

    /** Upper and lower case and a digit, {@code /} or {@code +}: a generated key, not a word, path or hex hash. */
    private static boolean random(CharSequence text, int start, int end) {
        boolean upper = false;
        boolean lower = false;
        boolean other = false;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            upper |= Chars.upper(c);
            lower |= c >= 'a' && c <= 'z';
            other |= !Chars.letter(c);
        }
        return upper && lower && other;
    }

    /**
     * {@code eyJ...}: a header and a payload of base64url joined by dots, then a signature (possibly empty).
     * Returns the index after what was read.
     */
    private static int jwt(CharSequence text, int start, Hits found) {
        if (!startsWith(text, start, "eyJ")) {
            return start + 1;
        }
        int header = Chars.base64urlRun(text, start, MAX_JWT_HEADER + 1);
        int dot = start + header;
        if (header < 10 || header > MAX_JWT_HEADER || dot >= text.length() || text.charAt(dot) != '.') {
            return dot;
        }
        int payload = Chars.base64urlRun(text, dot + 1, Integer.MAX_VALUE);
        int second = dot + 1 + payload;
        if (payload < 2 || second >= text.length() || text.charAt(second) != '.') {
            return dot;
        }
        int end = second + 1 + Chars.base64urlRun(text, second + 1, Integer.MAX_VALUE);
        if (found.wants(SensitiveKind.JWT) && Chars.endsAt(text, end) && header(text, start, dot)) {
            found.found(SensitiveKind.JWT, start, end);
        }
        return end;
    }

    /** Whether {@code text[start, dot)} decodes to a JSON object naming its {@code alg}. */
    private static boolean header(CharSequence text, int start, int dot) {
        try {
            byte[] decoded = Base64.getUrlDecoder().decode(text.subSequence(start, dot).toString());
            String json = new String(decoded, StandardCharsets.UTF_8).strip();
            return json.startsWith("{") && json.contains("\"alg\"");
        } catch (IllegalArgumentException e) {
            return false; // not base64url after all
        }
    }

    /**
     * Where the PEM private key that begins at {@code start} ends: after its {@code -----END ...-----} line, or
     * the end of the text when it has none (what follows the header is key material either way).
     */
    static int privateKeyEnd(CharSequence text, int start) {
        int n = text.length();
        for (int i = start + PEM_BEGIN.length(); i < n; i++) {
            if (text.charAt(i) == '-' && startsWith(text, i, PEM_END)) {
                int close = i + PEM_END.length();
                while (close < n && close - i < 64 && text.charAt(close) != '\n') {
                    if (startsWith(text, close, "-----")) {
                        return close + 5;
                    }
                    close++;
                }
                return close;
            }
        }
        return n;
    }

    /** {@code -----BEGIN [RSA |EC |OPENSSH |ENCRYPTED ...]PRIVATE KEY-----} at {@code start}. */
    static boolean privateKey(CharSequence text, int start) {
        if (!startsWith(text, start, PEM_BEGIN)) {
            return false;
        }
        int from = start + PEM_BEGIN.length();
        int last = Math.min(text.length() - PEM_PRIVATE.length(), from + 24);
        for (int i = from; i <= last; i++) {
            char c = text.charAt(i);
            if (c == 'P' && startsWith(text, i, PEM_PRIVATE)) {
                return true;
            }
            if (!Chars.upper(c) && c != ' ') {
                return false;
            }
        }
        return false;
    }
}
