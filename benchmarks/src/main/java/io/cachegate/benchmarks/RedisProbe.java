package io.cachegate.benchmarks;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code bench fleet} asks Redis itself, with Lettuce's blocking API on the bench's own thread: command
 * counts ({@code INFO commandstats}, summed over the masters of a {@code redis-cluster://} URI) and the memory of
 * sampled entries ({@code MEMORY USAGE}).
 */
final class RedisProbe implements AutoCloseable {

    private static final Pattern CALLS = Pattern.compile("(?m)^cmdstat_([a-z|_-]+):calls=(\\d+)");

    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> redis;
    /** The {@code INFO commandstats} of every server that counts: the one, or each master of a cluster. */
    private final Supplier<List<String>> commandStats;

    RedisProbe(String uri) {
        if (uri.startsWith("redis-cluster://")) {
            List<RedisURI> seeds = new ArrayList<>();
            for (String host : uri.substring("redis-cluster://".length()).split(",")) {
                RedisURI seed = RedisURI.create("redis://" + host.strip());
                seed.setTimeout(Duration.ofSeconds(10));
                seeds.add(seed);
            }
            RedisClusterClient cluster = RedisClusterClient.create(seeds);
            StatefulRedisClusterConnection<String, String> c = cluster.connect();
            client = cluster;
            connection = c;
            redis = c.sync();
            commandStats = () -> {
                List<String> stats = new ArrayList<>();
                for (RedisClusterNode node : c.getPartitions()) {
                    if (node.getRole().isUpstream()) {
                        stats.add(c.getConnection(node.getNodeId()).sync().info("commandstats"));
                    }
                }
                return stats;
            };
        } else {
            RedisURI target = RedisURI.create(uri);
            target.setTimeout(Duration.ofSeconds(10));
            RedisClient standalone = RedisClient.create(target);
            var c = standalone.connect();
            client = standalone;
            connection = c;
            redis = c.sync();
            commandStats = () -> List.of(c.sync().info("commandstats"));
        }
    }

    /** Commands Redis has run since its start, every client's, without this probe's own INFO. */
    long commandsRun() {
        long total = 0;
        for (String stats : commandStats.get()) {
            Matcher m = CALLS.matcher(stats);
            while (m.find()) {
                if (!m.group(1).equals("info")) {
                    total += Long.parseLong(m.group(2));
                }
            }
        }
        return total;
    }

    /** The mean {@code MEMORY USAGE} of up to {@code sample} keys matching {@code pattern}, and how many were read. */
    long[] meanMemory(String pattern, int sample) {
        List<String> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
            for (String key : page.getKeys()) {
                if (keys.size() < sample) {
                    keys.add(key);
                }
            }
            cursor = page;
        } while (!cursor.isFinished() && keys.size() < sample);
        long sum = 0;
        int read = 0;
        for (String key : keys) {
            Long bytes = redis.memoryUsage(key);
            if (bytes != null) {
                sum += bytes;
                read++;
            }
        }
        return new long[] {read == 0 ? 0 : sum / read, read};
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
