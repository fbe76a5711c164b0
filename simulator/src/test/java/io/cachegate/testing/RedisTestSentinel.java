package io.cachegate.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * A local Sentinel setup: one master, one replica and three sentinels (quorum two) of the machine's
 * redis-server on free ports. A master is declared down after one second, so a failover takes a few seconds.
 * Start it once per test class and close it afterwards; the test is skipped when redis-server or redis-cli is
 * missing (the sentinels run as {@code redis-server --sentinel}: no separate redis-sentinel binary needed).
 */
public final class RedisTestSentinel implements AutoCloseable {

    /** The master's name in the sentinels (the URI's {@code #fragment}). */
    public static final String MASTER_NAME = "cachegate";

    private final RedisProcesses processes;
    private final List<Integer> sentinels;
    private int master;
    private final int replica;

    private RedisTestSentinel(RedisProcesses processes, int master, int replica, List<Integer> sentinels) {
        this.processes = processes;
        this.master = master;
        this.replica = replica;
        this.sentinels = sentinels;
    }

    /** Starts the five processes and waits until the sentinels know each other and the replica is in sync. */
    public static RedisTestSentinel start() {
        RedisProcesses processes = new RedisProcesses("sentinel");
        try {
            List<String> fast = List.of("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0");
            int master = processes.start(fast);
            List<String> replicaArgs = new ArrayList<>(fast);
            replicaArgs.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(master)));
            int replica = processes.start(replicaArgs);
            List<Integer> sentinels = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                sentinels.add(processes.startSentinel(List.of(
                        "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master + " 2",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                        "sentinel failover-timeout " + MASTER_NAME + " 5000",
                        "sentinel parallel-syncs " + MASTER_NAME + " 1")));
            }
            RedisTestSentinel set = new RedisTestSentinel(processes, master, replica, List.copyOf(sentinels));
            RedisProcesses.await("the replica is in sync and the sentinels know each other and the replica", 20_000,
                    set::healthy);
            return set;
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
    }

    /** {@code redis-sentinel://h:p,h:p,h:p#cachegate}: the sentinels and the master's name (Lettuce's form). */
    public String uri() {
        return "redis-sentinel://" + String.join(",", sentinels.stream().map(p -> "127.0.0.1:" + p).toList())
                + "#" + MASTER_NAME;
    }

    public int master() {
        return master;
    }

    public int replica() {
        return replica;
    }

    /** Kills the master (SIGKILL); the sentinels promote the replica after about a second and an election. */
    public void killMaster() {
        processes.kill(master);
    }

    /** Waits until the sentinels name the replica as the master and it answers as one. */
    public void awaitFailover(long millis) {
        String port = Integer.toString(replica);
        RedisProcesses.await("the sentinels promoted the replica", millis, () -> {
            for (int sentinel : sentinels) {
                if (!processes.cli(sentinel, "SENTINEL", "get-master-addr-by-name", MASTER_NAME).contains(port)) {
                    return false;
                }
            }
            return processes.cli(replica, "ROLE").startsWith("master");
        });
        master = replica;
    }

    /** One command on the process on {@code port} through redis-cli ({@code --raw} output). */
    public String cli(int port, String... args) {
        return processes.cli(port, args);
    }

    private boolean healthy() {
        String info = processes.cli(master, "INFO", "replication");
        if (!info.contains("connected_slaves:1") || !info.contains("state=online")) {
            return false;
        }
        for (int sentinel : sentinels) {
            if (!processes.cli(sentinel, "SENTINEL", "ckquorum", MASTER_NAME).startsWith("OK 3 usable")
                    || !processes.cli(sentinel, "SENTINEL", "replicas", MASTER_NAME).contains(Integer.toString(replica))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        processes.close();
    }
}
