package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bench fleet --redis cluster}'s parts for real: {@link LocalRedis} starts a cluster of three masters that
 * serves every slot, and {@link RedisProbe} counts commands on all of them and reads entries' memory across them.
 * Skipped when redis-server or redis-cli is not installed.
 */
class LocalRedisClusterIT {

    @Test
    void cluster_startedAndProbedAcrossEveryMaster() throws Exception {
        assumeTrue(SetupCommands.find("redis-server").isPresent() && SetupCommands.find("redis-cli").isPresent(),
                "redis-server and redis-cli are not installed");
        try (BenchChildren children = new BenchChildren("cluster-it", new ChildLauncher("unused.Main"), "")) {
            String uri = new LocalRedis(new Progress("cluster-it")).uri("cluster", children);
            assertThat(uri).startsWith("redis-cluster://").matches("redis-cluster://[^,]+,[^,]+,[^,]+");

            List<RedisURI> seeds = new ArrayList<>();
            for (String host : uri.substring("redis-cluster://".length()).split(",")) {
                seeds.add(RedisURI.create("redis://" + host));
            }
            RedisClusterClient client = RedisClusterClient.create(seeds);
            try (RedisProbe probe = new RedisProbe(uri);
                 StatefulRedisClusterConnection<String, String> c = client.connect()) {
                long before = probe.commandsRun();
                // 60 tenants' keys: their hash tags fall on all three masters' slots.
                for (int i = 0; i < 60; i++) {
                    c.sync().set("cg:v1:{t" + i + "}:k", "x".repeat(500));
                }
                assertThat(probe.commandsRun() - before).as("every master's SETs counted").isGreaterThanOrEqualTo(60);
                long[] memory = probe.meanMemory("cg:v1:{*", 200);
                assertThat(memory[1]).as("keys read across the masters").isEqualTo(60);
                assertThat(memory[0]).isGreaterThan(500);
            } finally {
                client.shutdown();
            }
        }
    }
}
