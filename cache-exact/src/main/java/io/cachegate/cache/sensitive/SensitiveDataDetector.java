package io.cachegate.cache.sensitive;

import com.google.re2j.Matcher;
import io.cachegate.config.SensitivePattern;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Finds sensitive data in text: the built-in kinds ({@link SensitiveKind}) in one pass, then the policy's own
 * patterns, both over the text {@linkplain FoldedText folded} once (fullwidth, Arabic-Indic or Devanagari digits,
 * Unicode dashes and spaces, zero-width characters), so the same data written in other characters is found. The
 * pass looks at each character once and starts a check only where a format can begin (an {@code @}, a digit,
 * {@code +} or {@code (} at a token start, a letter that starts a known prefix, five dashes), and every check reads
 * a bounded stretch or skips what it read, so the time is linear in the text whatever it holds. Policy patterns run
 * on RE2/J, also linear. Immutable and thread-safe: one per policy generation.
 */
public final class SensitiveDataDetector {

    private static final SensitiveDataDetector BUILT_IN = new SensitiveDataDetector(List.of());

    private final List<SensitivePattern> patterns;

    private SensitiveDataDetector(List<SensitivePattern> patterns) {
        this.patterns = List.copyOf(patterns);
    }

    /** The built-in kinds only. */
    public static SensitiveDataDetector builtIn() {
        return BUILT_IN;
    }

    /** The built-in kinds and {@code patterns} (compiled when the policy was read). */
    public static SensitiveDataDetector with(List<SensitivePattern> patterns) {
        return patterns.isEmpty() ? BUILT_IN : new SensitiveDataDetector(patterns);
    }

    /** What {@code original} holds; {@link Findings#NONE} for clean text. */
    public Findings scan(CharSequence original) {
        CharSequence text = FoldedText.fold(original);
        EnumSet<SensitiveKind> found = EnumSet.noneOf(SensitiveKind.class);
        builtIn(text, new Hits() {
            @Override
            public boolean wants(SensitiveKind kind) {
                return !found.contains(kind); // one of a kind is enough to report it
            }

            @Override
            public void found(SensitiveKind kind, int start, int end) {
                found.add(kind);
            }
        });
        List<String> matched = null;
        for (SensitivePattern p : patterns) {
            if (p.regex().matcher(text).find()) {
                if (matched == null) {
                    matched = new ArrayList<>(2);
                }
                matched.add(p.name());
            }
        }
        if (found.isEmpty() && matched == null) {
            return Findings.NONE;
        }
        return new Findings(found, matched == null ? List.of() : matched);
    }

    /**
     * {@code original} with every finding replaced by {@code [REDACTED:<kind>]} (a policy pattern's name for its
     * matches), for logs that carry text; the same text when nothing is found. Found in the folded text like
     * {@link #scan}, replaced in the original. Linear in the text like {@link #scan}.
     */
    public String redact(CharSequence original) {
        FoldedText folded = FoldedText.withOrigins(original);
        CharSequence text = folded.text();
        Spans spans = new Spans();
        builtIn(text, spans);
        for (SensitivePattern p : patterns) {
            Matcher m = p.regex().matcher(text);
            while (m.find()) {
                spans.add(p.name(), m.start(), m.end());
            }
        }
        return spans.apply(original, folded);
    }

    private static void builtIn(CharSequence text, Hits found) {
        int n = text.length();
        Numbers.Scratch scratch = null;
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '@') {
                int end = found.wants(SensitiveKind.EMAIL) ? Emails.end(text, i) : -1;
                if (end > i) {
                    found.found(SensitiveKind.EMAIL, Emails.start(text, i), end);
                }
                i++;
            } else if (!tokenStart(text, i)) {
                i++;
            } else if (Chars.digit(c)) {
                if (scratch == null) {
                    scratch = new Numbers.Scratch();
                }
                i = Numbers.run(text, i, found, scratch);
            } else if (Chars.letter(c)) {
                int next = Secrets.at(text, i, found);
                int iban = found.wants(SensitiveKind.IBAN) ? Iban.end(text, i) : -1;
                if (iban > i) {
                    found.found(SensitiveKind.IBAN, i, iban);
                    next = Math.max(next, iban);
                }
                i = Chars.wordEnd(text, Math.max(next, i + 1)); // no check starts inside a word
            } else if (c == '+' && i + 1 < n && Chars.digit(text.charAt(i + 1))) {
                i = Numbers.international(text, i, found);
            } else if (c == '(') {
                i = Numbers.parenthesised(text, i, found);
            } else if (c == '-' && Secrets.privateKey(text, i)) {
                int end = Secrets.privateKeyEnd(text, i);
                found.found(SensitiveKind.PRIVATE_KEY, i, end);
                i = Math.max(i + 5, end); // the key's body holds nothing else worth finding
            } else {
                i++;
            }
        }
    }

    /** Not inside a word, nor the fraction or thousands of a number ("3.14", "1,234"). */
    private static boolean tokenStart(CharSequence text, int i) {
        if (i == 0) {
            return true;
        }
        char before = text.charAt(i - 1);
        if (Chars.word(before)) {
            return false;
        }
        return !((before == '.' || before == ',') && i >= 2 && Chars.digit(text.charAt(i - 2))
                && Chars.digit(text.charAt(i)));
    }
}
