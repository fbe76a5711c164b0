package io.cachegate.cache.sensitive;

/** The Luhn (mod 10) check digit of payment card numbers: it catches every single-digit typo. */
final class Luhn {

    private Luhn() {
    }

    /** Whether {@code digits[offset, offset + length)} (values 0-9) pass the Luhn check. */
    static boolean valid(byte[] digits, int offset, int length) {
        int sum = 0;
        boolean doubled = false;
        for (int i = offset + length - 1; i >= offset; i--) {
            int d = digits[i];
            if (doubled) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            doubled = !doubled;
        }
        return sum % 10 == 0;
    }
}
