package io.cachegate.cache.semantic;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One piece of error-budget evidence as a gateway filed it, in the one-line text form its fleet shares: a verdict
 * on a (query, entry) pair, an entry's demotion, or the answer group of an entry it generated. Several gateways over
 * one Qdrant collection serve the same entries, so each files what the others found ({@link HitEvidence#apply}): a
 * class opens on the fleet's verdicts, an entry a wrong audit demoted at one gateway is served by none, and the
 * neighbourhood agreement knows the answers of entries other gateways generated (without, each of them counted as an
 * answer of its own).
 *
 * <p>Text: fields separated by tabs, the strings percent-encoded (a route label or an entry key may hold any
 * character); {@link #decode} refuses a line that is not one of the three shapes, or whose numbers are out of range,
 * rather than file it.
 */
public sealed interface FiledEvidence {

    /** Lines longer than this are refused unread: an entry key and a route label are short. */
    int MAX_LINE = 4096;

    /** The line another gateway reads back with {@link #decode}. */
    String encode();

    /**
     * A verdict, as {@link HitEvidence#record} (no {@code otherKey}) or {@link HitEvidence#recordPair} filed it.
     *
     * @param otherKey the entry filed after the query's miss, for a pair; null for an audit's verdict
     */
    record Verdict(String pool, String entryKey, String otherKey, float similarity, double prior, boolean right)
            implements FiledEvidence {

        @Override
        public String encode() {
            return "v\t" + text(pool) + '\t' + text(entryKey) + '\t' + (otherKey == null ? "" : text(otherKey)) + '\t'
                    + similarity + '\t' + prior + '\t' + (right ? '1' : '0');
        }
    }

    /** An entry answers exact repeats only from now on ({@link HitEvidence#demote}). */
    record Demotion(String entryKey) implements FiledEvidence {

        @Override
        public String encode() {
            return "d\t" + text(entryKey);
        }
    }

    /** The answer group of an entry a gateway generated ({@link HitEvidence#fileAnswer}). */
    record Answer(String entryKey, long group) implements FiledEvidence {

        @Override
        public String encode() {
            return "a\t" + text(entryKey) + '\t' + group;
        }
    }

    /** The evidence {@code line} holds; empty when it is not a line {@link #encode} writes. */
    static Optional<FiledEvidence> decode(String line) {
        if (line == null || line.length() > MAX_LINE) {
            return Optional.empty();
        }
        String[] f = line.split("\t", -1);
        try {
            if (f.length == 2 && f[0].equals("d") && !f[1].isEmpty()) {
                return Optional.of(new Demotion(untext(f[1])));
            }
            if (f.length == 3 && f[0].equals("a") && !f[1].isEmpty()) {
                long group = Long.parseLong(f[2]);
                return group == AnswerGroups.UNKNOWN ? Optional.empty() : Optional.of(new Answer(untext(f[1]), group));
            }
            if (f.length != 7 || !f[0].equals("v") || f[1].isEmpty() || f[2].isEmpty()
                    || !(f[6].equals("1") || f[6].equals("0"))) {
                return Optional.empty();
            }
            float similarity = Float.parseFloat(f[4]);
            double prior = Double.parseDouble(f[5]);
            if (!(similarity >= -1.0001f && similarity <= 1.0001f) || !(prior >= 0 && prior <= 1)) {
                return Optional.empty();
            }
            return Optional.of(new Verdict(untext(f[1]), untext(f[2]), f[3].isEmpty() ? null : untext(f[3]),
                    similarity, prior, f[6].equals("1")));
        } catch (IllegalArgumentException e) { // a number or an escape that does not parse
            return Optional.empty();
        }
    }

    private static String text(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String untext(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
