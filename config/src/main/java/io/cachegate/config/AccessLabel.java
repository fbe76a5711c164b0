package io.cachegate.config;

import java.util.regex.Pattern;

/**
 * The syntax of an access label, one rule for the policy's {@code api_keys[].labels} and the
 * {@code X-Cache-Labels} header: letters, digits, {@code _ . -}, at most 64, case-sensitive. A label travels
 * comma-separated in a header, so it holds no comma or space.
 */
public final class AccessLabel {

    /** Labels one request may declare at most. */
    public static final int MAX_PER_REQUEST = 32;
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private AccessLabel() {
    }

    public static boolean valid(String label) {
        return LABEL.matcher(label).matches();
    }
}
