package io.cachegate.cache.semantic;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Rejects a pair that asks for opposite actions: one text says "enable" (and not "disable"), the other "disable"
 * (and not "enable"). vLLM Semantic Router added such a guard after "enable 2FA" matched "disable 2FA" at cosine
 * 0.82; the negation guard does not see it, since neither text is negated. A fixed list of antonyms, by word.
 */
final class PolarityGuard implements PairGuard {

    static final PolarityGuard INSTANCE = new PolarityGuard();

    private static final Map<String, String> OPPOSITES = Map.ofEntries(
            Map.entry("enable", "disable"), Map.entry("enabled", "disabled"), Map.entry("activate", "deactivate"),
            Map.entry("activated", "deactivated"), Map.entry("lock", "unlock"), Map.entry("locked", "unlocked"),
            Map.entry("freeze", "unfreeze"), Map.entry("frozen", "unfrozen"), Map.entry("block", "unblock"),
            Map.entry("blocked", "unblocked"), Map.entry("add", "remove"), Map.entry("increase", "decrease"),
            Map.entry("subscribe", "unsubscribe"), Map.entry("install", "uninstall"), Map.entry("connect", "disconnect"),
            Map.entry("encrypt", "decrypt"), Map.entry("upload", "download"), Map.entry("import", "export"),
            Map.entry("deposit", "withdraw"), Map.entry("buy", "sell"), Map.entry("open", "close"),
            Map.entry("start", "stop"), Map.entry("allow", "deny"), Map.entry("include", "exclude"),
            Map.entry("show", "hide"), Map.entry("maximum", "minimum"), Map.entry("before", "after"));

    private PolarityGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        Set<String> q = words(query);
        Set<String> c = words(cached);
        for (Map.Entry<String, String> pair : OPPOSITES.entrySet()) {
            String a = pair.getKey();
            String b = pair.getValue();
            if ((only(q, a, b) && only(c, b, a)) || (only(q, b, a) && only(c, a, b))) {
                return true;
            }
        }
        return false;
    }

    private static boolean only(Set<String> words, String present, String absent) {
        return words.contains(present) && !words.contains(absent);
    }

    private static Set<String> words(String text) {
        Set<String> out = new HashSet<>();
        for (String w : GuardText.words(text)) {
            out.add(GuardText.lower(w));
        }
        return out;
    }

    @Override
    public String name() {
        return "polarity";
    }

    @Override
    public String toString() {
        return name();
    }
}
