package io.cachegate.gateway.exchange;

import java.util.concurrent.ThreadLocalRandom;

/** Request ids: the client's own when it is a sane token, else a fresh random one. */
public final class RequestIds {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int MAX_CLIENT_ID_LENGTH = 128;

    private RequestIds() {
    }

    public static String accept(String clientId) {
        return isSane(clientId) ? clientId : generate();
    }

    static String generate() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        char[] id = new char[32];
        long hi = random.nextLong();
        long lo = random.nextLong();
        for (int i = 0; i < 16; i++) {
            id[i] = HEX[(int) (hi >>> (60 - 4 * i)) & 0xf];
            id[16 + i] = HEX[(int) (lo >>> (60 - 4 * i)) & 0xf];
        }
        return new String(id);
    }

    /** Letters, digits and {@code - _ . :} only, so the id is safe in logs and headers. */
    private static boolean isSane(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_CLIENT_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.' || c == ':';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
