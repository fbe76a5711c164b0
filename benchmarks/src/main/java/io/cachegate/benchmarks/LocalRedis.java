package io.cachegate.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis the benchmarks' gateways share: the given one, the local one, a redis-server of its own, or a local
 * Redis Cluster of its own.
 */
final class LocalRedis {

    private final Progress progress;

    LocalRedis(Progress progress) {
        this.progress = progress;
    }

    /**
     * {@code option} is {@code auto} (127.0.0.1:6379 if it answers PING, else start one), {@code start} (always
     * start one, as a child of {@code children}), {@code cluster} (start a cluster of three masters) or a URI
     * ({@code redis://}, {@code redis-cluster://}); the URI the gateways use.
     */
    String uri(String option, BenchChildren children) throws IOException, InterruptedException {
        if ("cluster".equals(option)) {
            return cluster(children);
        }
        if (!"auto".equals(option) && !"start".equals(option)) {
            progress.info("Redis: %s (given)", option);
            return option;
        }
        if ("auto".equals(option) && ping(6379)) {
            progress.info("Redis: 127.0.0.1:6379 answers PING, using it");
            return "redis://127.0.0.1:6379";
        }
        int port = server(children, "redis", List.of());
        progress.info("Redis: started redis-server on 127.0.0.1:%d", port);
        return "redis://127.0.0.1:" + port;
    }

    /**
     * Three masters of the machine's redis-server in a cluster of their own (no replicas: the benchmark counts
     * commands and memory; failover is the integration tests' part), made with {@code redis-cli --cluster create}.
     */
    private String cluster(BenchChildren children) throws IOException, InterruptedException {
        List<String> hosts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            // Each node its own directory (it writes its nodes.conf there), under the children's, removed with them.
            String dir = Files.createDirectories(children.dir().resolve("redis-cluster-" + i)).toString();
            int port = server(children, "redis-cluster-" + i, List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--dir", dir));
            hosts.add("127.0.0.1:" + port);
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        create.addAll(hosts);
        create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Process cli = new ProcessBuilder(create).redirectErrorStream(true).start();
        String created = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (cli.waitFor() != 0 || !created.contains("All 16384 slots covered")) {
            throw new IllegalStateException("redis-cli --cluster create failed:\n" + created);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        for (String host : hosts) {
            while (!clusterOk(host)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the local cluster did not report cluster_state:ok");
                }
                Thread.sleep(100);
            }
        }
        progress.info("Redis: started a cluster of three masters on %s", String.join(", ", hosts));
        return "redis-cluster://" + String.join(",", hosts);
    }

    private static boolean clusterOk(String host) throws IOException, InterruptedException {
        String[] hp = host.split(":");
        Process cli = new ProcessBuilder("redis-cli", "-h", hp[0], "-p", hp[1], "CLUSTER", "INFO")
                .redirectErrorStream(true).start();
        String info = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return cli.waitFor() == 0 && info.contains("cluster_state:ok");
    }

    /** A redis-server child on a free port, answering PING; its port. */
    private static int server(BenchChildren children, String name, List<String> extra)
            throws IOException, InterruptedException {
        int port = LocalProcesses.freePort();
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        command.addAll(extra);
        children.adopt(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(children.log(name)).start());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!ping(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see "
                        + children.log(name));
            }
            Thread.sleep(100);
        }
        return port;
    }

    private static boolean ping(int port) {
        return RedisServer.ping(port);
    }
}
