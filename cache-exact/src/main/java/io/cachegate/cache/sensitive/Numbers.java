package io.cachegate.cache.sensitive;

import static io.cachegate.cache.sensitive.Chars.digit;

/**
 * Payment cards, US SSNs and phone numbers in a run of digit groups ({@code 4111 1111 1111 1111},
 * {@code 078-05-1120}, {@code 202.555.0173}), read from {@linkplain FoldedText folded} text. Groups are joined the
 * ways people type them: one or more spaces, a dash or slash (spaces around it allowed), a dot, or a line break
 * (which is also where one message of a conversation ends and the next begins, so a card split over two messages
 * is one run). Precision over recall: a number is flagged only in the shapes
 * people write these in and only when it passes the format's own checks (a card's issuer prefix and Luhn digit,
 * an SSN's area/group/serial rules, a US number's area and exchange codes), so years, dates, prices, ids and
 * hashes in prose are left alone. Bare 9- and 10-digit runs are not taken for SSNs or phones: too many ordinary
 * numbers have that length.
 */
final class Numbers {

    /** More groups than a card has (4-4-4-4-3 is five); a longer run is checked window by window. */
    private static final int MAX_GROUPS = 8;
    private static final int MAX_RUN_DIGITS = 40;

    private Numbers() {
    }

    /** Buffers for one scan's runs, so reading a number allocates nothing. */
    static final class Scratch {
        final byte[] digits = new byte[MAX_RUN_DIGITS];
        final int[] groups = new int[MAX_GROUPS];
        final char[] gaps = new char[MAX_GROUPS];
        /** Where each group starts in the text, for a redaction's span. */
        final int[] starts = new int[MAX_GROUPS];
        /** Where the gap {@link #gap} last read ends. */
        int gapEnd;
    }

    /**
     * Reads the run of digit groups that starts at {@code start} and adds what it holds to {@code found}. Returns
     * the index after the run.
     */
    static int run(CharSequence text, int start, Hits found, Scratch scratch) {
        int n = text.length();
        byte[] digits = scratch.digits;
        int[] groups = scratch.groups;
        char[] gaps = scratch.gaps;
        scratch.starts[0] = start;
        int count = 0;
        int groupCount = 0;
        int length = 0;
        int i = start;
        while (i < n && count < MAX_RUN_DIGITS) {
            char c = text.charAt(i);
            if (digit(c)) {
                digits[count++] = (byte) (c - '0');
                length++;
                i++;
            } else if (groupCount < MAX_GROUPS - 1 && (gaps[groupCount] = gap(text, i, scratch)) != 0) {
                groups[groupCount++] = length;
                i = scratch.gapEnd;
                scratch.starts[groupCount] = i;
                length = 0;
            } else {
                break;
            }
        }
        groups[groupCount++] = length;
        if (!Chars.endsAt(text, i) || i < n && digit(text.charAt(i))) {
            // "2024-01-15T10", "4111...1111abc", a run longer than any card: an id or a hash, not these formats.
            return Chars.wordEnd(text, i);
        }
        windows(scratch, groupCount, found);
        return i;
    }

    /**
     * The kind of the gap between two digit groups at {@code i}: {@code ' '} for spaces alone, else its one dash,
     * slash or line break ({@code '-'}, {@code '/'}, {@code '\n'}), which spaces may surround, or a dot with none
     * (spaced, it ends a sentence). 0 when no digit follows a short gap. Sets {@code scratch.gapEnd}.
     */
    private static char gap(CharSequence text, int i, Scratch scratch) {
        int n = text.length();
        int j = spaces(text, i);
        char kind = j > i ? ' ' : 0;
        if (j < n) {
            char c = text.charAt(j);
            if (c == '.' && j == i) {
                kind = '.';
                j++;
            } else if (c == '-' || c == '/' || c == '\n' || c == '\r') {
                kind = c == '\r' ? '\n' : c;
                j = spaces(text, j + (c == '\r' && j + 1 < n && text.charAt(j + 1) == '\n' ? 2 : 1));
            }
        }
        if (kind == 0 || j >= n || !digit(text.charAt(j))) {
            return 0;
        }
        scratch.gapEnd = j;
        return kind;
    }

    /** Past up to three spaces or tabs from {@code i}: more is layout, not a number's grouping. */
    private static int spaces(CharSequence text, int i) {
        int n = Math.min(text.length(), i + 3);
        while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** Every window of consecutive groups, so "Order 12 4111 1111 1111 1111" still finds the card. */
    private static void windows(Scratch scratch, int groupCount, Hits found) {
        byte[] digits = scratch.digits;
        int[] groups = scratch.groups;
        char[] gaps = scratch.gaps;
        int[] starts = scratch.starts;
        int offset = 0;
        for (int s = 0; s < groupCount; s++) {
            if (s > 0 && gaps[s - 1] == '.') {
                offset += groups[s];
                continue; // a fraction ("3.4111..."), not the start of a number of its own
            }
            if (found.wants(SensitiveKind.SSN) && ssn(digits, offset, groups, gaps, s, groupCount)) {
                found.found(SensitiveKind.SSN, starts[s], starts[s + 2] + groups[s + 2]);
            }
            if (found.wants(SensitiveKind.PHONE) && usPhone(digits, offset, groups, gaps, s, groupCount)) {
                found.found(SensitiveKind.PHONE, starts[s], starts[s + 2] + groups[s + 2]);
            }
            int card = found.wants(SensitiveKind.PAYMENT_CARD) ? card(digits, offset, groups, gaps, s, groupCount) : -1;
            if (card >= 0) {
                found.found(SensitiveKind.PAYMENT_CARD, starts[s], starts[card] + groups[card]);
            }
            offset += groups[s];
        }
    }

    /**
     * A card from group {@code s}: 13-19 digits, unseparated or in 4-4-4-4(-3), 4-6-5 or 4-6-4 groups. Returns its
     * last group, or -1.
     */
    private static int card(byte[] digits, int offset, int[] groups, char[] gaps, int s, int groupCount) {
        int total = 0;
        char kind = 0;
        boolean broken = false;
        for (int e = s; e < groupCount; e++) {
            char g = e > s ? gaps[e - 1] : 0;
            if (g == '\n' && !broken) {
                broken = true; // one line break: a number wrapped, or continued in the next message
            } else if (g == '.' || g == '\n' || g != 0 && kind != 0 && g != kind) {
                return -1; // dotted or mixed separators: not how a card is written
            } else if (g != 0) {
                kind = g;
            }
            total += groups[e];
            if (total > 19) {
                return -1;
            }
            if (total >= 13 && cardGroups(groups, s, e) && issuer(digits, offset, total)
                    && Luhn.valid(digits, offset, total)) {
                return e;
            }
        }
        return -1;
    }

    private static boolean cardGroups(int[] groups, int s, int e) {
        if (s == e) {
            return true;
        }
        int count = e - s + 1;
        if (count == 3 && groups[s] == 4 && groups[s + 1] == 6 && (groups[e] == 5 || groups[e] == 4)) {
            return true; // American Express, Diners Club
        }
        for (int g = s; g < e; g++) {
            if (groups[g] != 4) {
                return false;
            }
        }
        return groups[e] >= 1 && groups[e] <= 4;
    }

    /** The issuer prefixes of the card networks: Visa 4, Mastercard 51-55 and 2221-2720, Amex, Diners, JCB, 6. */
    private static boolean issuer(byte[] d, int offset, int length) {
        int first = d[offset];
        int two = first * 10 + d[offset + 1];
        int four = two * 100 + d[offset + 2] * 10 + d[offset + 3];
        return switch (first) {
            case 4, 6 -> true;
            case 5 -> two >= 50;                                   // Mastercard, Maestro
            case 3 -> two == 34 || two == 37 ? length == 15 : two == 30 || two >= 35; // Amex, Diners, JCB
            case 2 -> four >= 2221 && four <= 2720 && length == 16; // Mastercard's 2-series
            default -> false;
        };
    }

    /** {@code AAA-GG-SSSS} (dashes or spaces, one kind): area not 000, 666 or 9xx; group not 00; serial not 0000. */
    private static boolean ssn(byte[] d, int offset, int[] groups, char[] gaps, int s, int groupCount) {
        if (s + 2 >= groupCount || groups[s] != 3 || groups[s + 1] != 2 || groups[s + 2] != 4
                || gaps[s] != gaps[s + 1] || gaps[s] != ' ' && gaps[s] != '-') {
            return false;
        }
        int area = d[offset] * 100 + d[offset + 1] * 10 + d[offset + 2];
        int group = d[offset + 3] * 10 + d[offset + 4];
        int serial = d[offset + 5] * 1000 + d[offset + 6] * 100 + d[offset + 7] * 10 + d[offset + 8];
        return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0;
    }

    /** {@code NXX-NXX-XXXX} with one kind of separator; area code and exchange start with 2-9 (NANP). */
    private static boolean usPhone(byte[] d, int offset, int[] groups, char[] gaps, int s, int groupCount) {
        return s + 2 < groupCount && groups[s] == 3 && groups[s + 1] == 3 && groups[s + 2] == 4
                && gaps[s] == gaps[s + 1] && (gaps[s] == ' ' || gaps[s] == '-' || gaps[s] == '.')
                && d[offset] >= 2 && d[offset + 3] >= 2;
    }

    /**
     * {@code (NXX) NXX-XXXX} at {@code start} (an opening parenthesis). Returns the index after it when it is one
     * (and adds {@link SensitiveKind#PHONE}), else {@code start + 1}.
     */
    static int parenthesised(CharSequence text, int start, Hits found) {
        int n = text.length();
        int i = start + 1;
        if (i + 4 > n || !threeDigits(text, i) || text.charAt(i) < '2' || text.charAt(i + 3) != ')') {
            return start + 1;
        }
        i += 4;
        if (i < n && text.charAt(i) == ' ') {
            i++;
        }
        if (i + 3 > n || !threeDigits(text, i) || text.charAt(i) < '2') {
            return start + 1;
        }
        i += 3;
        if (i < n && (text.charAt(i) == '-' || text.charAt(i) == '.' || text.charAt(i) == ' ')) {
            i++;
        }
        if (i + 4 > n || !threeDigits(text, i) || !digit(text.charAt(i + 3)) || !Chars.endsAt(text, i + 4)) {
            return start + 1;
        }
        found.found(SensitiveKind.PHONE, start, i + 4);
        return i + 4;
    }

    /**
     * An international number at {@code start} (a plus sign): 8 to 15 digits (E.164) in groups joined by a space,
     * dash or dot, with an optional parenthesised part ({@code +44 (0)20 7946 0958}). Returns the index after it.
     */
    static int international(CharSequence text, int start, Hits found) {
        int n = text.length();
        int i = start + 1;
        int count = 0;
        int separators = 0;
        while (i < n && count <= 15) {
            char c = text.charAt(i);
            if (digit(c)) {
                count++;
                separators = 0;
            } else if ((c == ' ' || c == '-' || c == '.' || c == '(' || c == ')') && ++separators <= 2) {
                // ") " and " (" are the only two-character joins
            } else {
                break;
            }
            i++;
        }
        while (i > start + 1 && !digit(text.charAt(i - 1))) {
            i--; // a trailing space, dash or parenthesis belongs to the prose
        }
        if (count >= 8 && count <= 15 && Chars.endsAt(text, i)) {
            found.found(SensitiveKind.PHONE, start, i);
        }
        return i;
    }

    private static boolean threeDigits(CharSequence text, int i) {
        return digit(text.charAt(i)) && digit(text.charAt(i + 1)) && digit(text.charAt(i + 2));
    }
}
