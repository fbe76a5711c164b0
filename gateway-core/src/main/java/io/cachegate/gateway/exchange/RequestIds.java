package io.cachegate.gateway.exchange;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Request ids: the client's own when it is a sane token, else a fresh random one. The gateway also generates its
 * own id for every exchange; that one, never the client's, is shown to others (as {@code X-Cache-Origin-Request-Id}
 * on hits of an entry the exchange wrote), since a client's id may be a trace id or carry meaning of its own.
 */
public final class RequestIds {

    /** The gateway's own id of an exchange. */
    public static final Exchange.Key<String> GATEWAY_ID = Exchange.Key.named("gateway-request-id");

    /**
     * The ids of a new request.
     *
     * @param requestId the id echoed to the client and forwarded upstream: its own when sane, else {@code gatewayId}
     * @param gatewayId always generated here
     */
    public record Ids(String requestId, String gatewayId) {
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int MAX_CLIENT_ID_LENGTH = 128;

    private RequestIds() {
    }

    public static String accept(String clientId) {
        return isSane(clientId) ? clientId : generate();
    }

    public static Ids forRequest(String clientId) {
        String own = generate();
        return new Ids(isSane(clientId) ? clientId : own, own);
    }

    /** The gateway's own id of the exchange (generated now if the exchange was made without one). */
    public static String gatewayId(Exchange x) {
        String id = x.get(GATEWAY_ID);
        if (id == null) {
            id = generate();
            x.set(GATEWAY_ID, id);
        }
        return id;
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
