package io.cachegate.config;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * Glob matching for model names and paths: {@code *} matches any run of characters (including
 * {@code /}), {@code ?} exactly one, and every other character only itself.
 */
public final class Globs {

    private Globs() {
    }

    /** A predicate matching whole strings against the glob; it is false for {@code null}. */
    public static Predicate<String> compile(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.equals("*")) {
            return text -> text != null;
        }
        if (glob.indexOf('*') < 0 && glob.indexOf('?') < 0) {
            return glob::equals;
        }
        return text -> matches(glob, text);
    }

    /**
     * Matches without allocating or building a regex: a two-pointer walk that backtracks only to the
     * last {@code *}, so it is linear for typical globs and never exponential.
     */
    static boolean matches(String glob, String text) {
        if (text == null) {
            return false;
        }
        int g = 0;
        int t = 0;
        int star = -1;
        int starText = 0;
        while (t < text.length()) {
            if (g < glob.length() && (glob.charAt(g) == '?' || glob.charAt(g) == text.charAt(t))
                    && glob.charAt(g) != '*') {
                g++;
                t++;
            } else if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                starText = t;
            } else if (star >= 0) {
                g = star + 1;
                t = ++starText;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }
}
