package io.cachegate.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Decides whether the admin listener (purge, reload, stats) is reachable from the network without a token: the one
 * check that {@code validate}, {@code serve} and a reload all apply, so a file one of them accepts is never one
 * another refuses.
 */
public final class AdminExposure {

    private AdminExposure() {
    }

    /**
     * Why {@code server} must not be run, worded to follow {@code server.admin_host}: a non-loopback
     * {@code admin_host} and no (or a blank) {@code admin_token}.
     */
    public static Optional<String> problem(ServerSettings server) {
        boolean hasToken = server.adminToken().filter(token -> !token.isBlank()).isPresent();
        if (hasToken || isLoopback(server.adminHost())) {
            return Optional.empty();
        }
        return Optional.of(server.adminHost() + " is not a loopback address and"
                + " server.admin_token is not set: anyone who can reach port " + server.adminPort() + " could purge"
                + " the cache and read its stats. Set server.admin_token (e.g. admin_token: \"${CACHEGATE_ADMIN_TOKEN}\")"
                + " or bind the admin listener to 127.0.0.1.");
    }

    /** Whether {@code host} names only this machine; a name that does not resolve counts as exposed. */
    public static boolean isLoopback(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            for (InetAddress address : InetAddress.getAllByName(bare)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
