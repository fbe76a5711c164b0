package io.cachegate.cache.sensitive;

import static io.cachegate.cache.sensitive.Chars.digit;
import static io.cachegate.cache.sensitive.Chars.letter;

/**
 * International bank account numbers (ISO 13616): a country code, two check digits and the account, written
 * together or in groups of four, in capitals or not ({@code de89 3704 …} is the same account). Flagged only at
 * the length its country's IBANs have and when the ISO 7064 mod-97 check holds, which one random string in 97
 * passes.
 */
final class Iban {

    /** IBAN lengths by country code (the SWIFT IBAN registry), "CCnn" four characters each. */
    private static final String LENGTHS = "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BI27BR29BY28CH21CR22CY28CZ24DE22DJ27"
            + "DK18DO28EE20EG29ES24FI18FK18FO18FR27GB22GE22GI23GL18GR27GT28HR21HU28IE22IL23IQ23IS26IT27JO30KW30"
            + "KZ20LB28LC32LI21LT20LU20LV21LY25MC27MD24ME22MK19MN20MR27MT31MU30NI28NL18NO15OM23PK24PL28PS29PT25"
            + "QA29RO24RS22RU33SA24SC31SD18SE24SI19SK24SM27SO23ST25SV28TL23TN24TR26UA29VA22VG24XK20YE30";
    private static final byte[] LENGTH_BY_CODE = new byte[26 * 26];

    static {
        for (int i = 0; i < LENGTHS.length(); i += 4) {
            int code = (LENGTHS.charAt(i) - 'A') * 26 + LENGTHS.charAt(i + 1) - 'A';
            LENGTH_BY_CODE[code] = (byte) Integer.parseInt(LENGTHS.substring(i + 2, i + 4));
        }
    }

    private Iban() {
    }

    /** Where the IBAN that starts at {@code start} (a token start with a letter) ends; else -1. */
    static int end(CharSequence text, int start) {
        int n = text.length();
        if (start + 4 > n || !letter(text.charAt(start)) || !letter(text.charAt(start + 1))
                || !digit(text.charAt(start + 2)) || !digit(text.charAt(start + 3))) {
            return -1;
        }
        int expected = LENGTH_BY_CODE[(upper(text.charAt(start)) - 'A') * 26 + upper(text.charAt(start + 1)) - 'A'];
        if (expected == 0) {
            return -1;
        }
        char[] iban = new char[expected];
        int length = 0;
        int i = start;
        while (i < n && length < expected) {
            char c = text.charAt(i);
            if (digit(c) || letter(c)) {
                iban[length++] = upper(c);
            } else if (c != ' ' || length % 4 != 0 || i + 1 >= n || text.charAt(i + 1) == ' ') {
                break; // one space, and only between groups of four
            }
            i++;
        }
        return length == expected && Chars.endsAt(text, i) && mod97(iban) == 1 ? i : -1;
    }

    private static char upper(char c) {
        return c >= 'a' && c <= 'z' ? (char) (c - 'a' + 'A') : c;
    }

    /** ISO 7064 MOD 97-10 over the account then the first four characters, letters as 10..35. */
    static int mod97(char[] iban) {
        int remainder = 0;
        for (int k = 0; k < iban.length; k++) {
            char c = iban[(k + 4) % iban.length];
            remainder = digit(c) ? (remainder * 10 + (c - '0')) % 97 : (remainder * 100 + (c - 'A' + 10)) % 97;
        }
        return remainder;
    }
}
