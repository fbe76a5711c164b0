package io.cachegate.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * A local Redis Cluster of three masters and three replicas (the machine's redis-server, on free ports,
 * joined with {@code redis-cli --cluster create --cluster-replicas 1}), for the tests of Cluster support. A
 * node timeout of one second makes a failover take a few seconds. Start it once per test class and close it
 * afterwards; the test is skipped when redis-server or redis-cli is missing.
 */
public final class RedisTestCluster implements AutoCloseable {

    private static final long NODE_TIMEOUT_MILLIS = 1000;

    private final RedisProcesses processes;
    private final List<Integer> seeds;

    private RedisTestCluster(RedisProcesses processes, List<Integer> seeds) {
        this.processes = processes;
        this.seeds = seeds;
    }

    /** Starts six nodes, creates the cluster and waits until every slot is served and every replica in sync. */
    public static RedisTestCluster start() {
        RedisProcesses processes = new RedisProcesses("cluster");
        try {
            List<String> node = List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", Long.toString(NODE_TIMEOUT_MILLIS),
                    // Replicas sync at once (the default waits 5 s for more replicas to share one transfer).
                    "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0");
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            for (int i = 0; i < 6; i++) {
                create.add("127.0.0.1:" + processes.start(node));
            }
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            String created = processes.cli(create);
            if (!created.contains("All 16384 slots covered")) {
                throw new IllegalStateException("redis-cli --cluster create failed:\n" + created);
            }
            // --cluster create makes the first three nodes the masters.
            RedisTestCluster cluster = new RedisTestCluster(processes, processes.ports().subList(0, 3));
            RedisProcesses.await("the cluster is ok and every replica in sync", 20_000,
                    () -> cluster.healthy() && cluster.masters().stream().allMatch(cluster::replicaOnline));
            return cluster;
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
    }

    /** {@code redis-cluster://} with the three first masters as seeds (the form the policy takes). */
    public String uri() {
        return "redis-cluster://" + String.join(",", seeds.stream().map(p -> "127.0.0.1:" + p).toList());
    }

    /** The ports of the masters now, as a live node sees them. */
    public List<Integer> masters() {
        List<Integer> masters = new ArrayList<>();
        for (String line : nodes()) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].contains("master") && !f[2].contains("fail")) {
                masters.add(port(f[1]));
            }
        }
        return masters;
    }

    /** The port of the master serving {@code key}'s hash slot now (one redis-cli call: use {@link #slotMasters()} for many). */
    public int masterOf(String key) {
        return slotMasters()[Integer.parseInt(cli(anyLive(), "CLUSTER", "KEYSLOT", key).strip())];
    }

    /** For each of the 16384 hash slots, the port of the master serving it now (0 when none does). */
    public int[] slotMasters() {
        int[] owners = new int[16384];
        for (String line : nodes()) {
            String[] f = line.split(" ");
            if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String[] range = f[i].split("-");
                if (range[0].startsWith("[")) {
                    continue; // a slot being migrated
                }
                int from = Integer.parseInt(range[0]);
                int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                for (int slot = from; slot <= to; slot++) {
                    owners[slot] = port(f[1]);
                }
            }
        }
        return owners;
    }

    /** Kills the node on {@code port} (SIGKILL); its replica takes over after about two node timeouts. */
    public void kill(int port) {
        processes.kill(port);
    }

    /** Waits until every live node reports {@code cluster_state:ok} with {@code masters} masters. */
    public void awaitHealthy(long millis) {
        RedisProcesses.await("the cluster is ok again", millis, () -> healthy() && masters().size() == 3);
    }

    /** DBSIZE summed over the masters. */
    public long keys() {
        long sum = 0;
        for (int port : masters()) {
            sum += Long.parseLong(cli(port, "DBSIZE").strip());
        }
        return sum;
    }

    /** One command on the node on {@code port} through redis-cli ({@code --raw} output). */
    public String cli(int port, String... args) {
        return processes.cli(port, args);
    }

    private boolean healthy() {
        for (int port : processes.ports()) {
            if (!cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
                return false;
            }
        }
        return true;
    }

    private boolean replicaOnline(int master) {
        String info = cli(master, "INFO", "replication");
        return info.contains("connected_slaves:1") && info.contains("state=online");
    }

    private List<String> nodes() {
        return cli(anyLive(), "CLUSTER", "NODES").lines().filter(l -> !l.isBlank()).toList();
    }

    private int anyLive() {
        for (int port : processes.ports()) {
            if (processes.alive(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no cluster node is running");
    }

    /** {@code 127.0.0.1:7000@17000} to 7000. */
    private static int port(String address) {
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    @Override
    public void close() {
        processes.close();
    }
}
