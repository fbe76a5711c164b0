package io.cachegate.gateway.server;

import io.cachegate.config.Backend;
import io.cachegate.config.Policy;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Optional;

/**
 * The proxy listener's share of the process's open-file limit: the limit less what upstream connections and the
 * rest of the process (Redis, log files, the jar, the event loops' own descriptors) may hold. A client connection
 * over it is refused at accept while a descriptor is still free to refuse it with; without the share, idle client
 * sockets took every descriptor, {@code accept()} failed with EMFILE and the upstream calls of the clients already
 * in failed with them.
 */
public final class DescriptorBudget {

    /** Descriptors kept for everything but client and upstream connections. */
    static final int RESERVED = 128;
    /** No limit known (not a Unix JVM): the policy's caps alone decide. */
    public static final DescriptorBudget UNLIMITED = new DescriptorBudget(Long.MAX_VALUE);

    private final long limit;

    private DescriptorBudget(long limit) {
        this.limit = limit;
    }

    /** This process's limit ({@code ulimit -n}), when the JVM tells it. */
    public static DescriptorBudget ofProcess() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix && unix.getMaxFileDescriptorCount() > 0) {
            return new DescriptorBudget(unix.getMaxFileDescriptorCount());
        }
        return UNLIMITED;
    }

    static DescriptorBudget of(long limit) {
        return new DescriptorBudget(limit);
    }

    /** The most client connections open at once: {@code server.max_connections}, or fewer when descriptors are short. */
    int clientCap(Policy policy) {
        long share = limit == Long.MAX_VALUE ? Long.MAX_VALUE : limit - RESERVED - upstream(policy);
        return (int) Math.max(1, Math.min(policy.server().connections().maxConnections(), share));
    }

    /** What to log at start when {@code policy}'s caps need more descriptors than the process may open. */
    public Optional<String> warning(Policy policy) {
        int maxConnections = policy.server().connections().maxConnections();
        long needed = (long) maxConnections + upstream(policy) + RESERVED;
        if (needed <= limit) {
            return Optional.empty();
        }
        return Optional.of("the open-file limit (" + limit + ") is below what server.max_connections (" + maxConnections
                + ") needs with the upstream pools (" + upstream(policy) + ") and " + RESERVED + " for the rest: " + needed
                + ". Client connections are capped at " + clientCap(policy) + " so descriptors remain for upstream"
                + " calls; raise the limit (ulimit -n " + needed + ", systemd LimitNOFILE, docker --ulimit nofile) or"
                + " lower server.max_connections.");
    }

    /** Upstream connections the backends' pools may open at most. */
    private static long upstream(Policy policy) {
        long total = 0;
        for (Backend backend : policy.backends()) {
            total += (long) backend.urls().size() * backend.maxConnectionsPerUrl();
        }
        return total;
    }
}
