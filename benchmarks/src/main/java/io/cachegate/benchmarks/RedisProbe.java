package io.cachegate.benchmarks;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code bench fleet} asks Redis itself, with Lettuce's blocking API on the bench's own thread: command
 * counts ({@code INFO commandstats}) and the memory of sampled entries ({@code MEMORY USAGE}).
 */
final class RedisProbe implements AutoCloseable {

    private static final Pattern CALLS = Pattern.compile("(?m)^cmdstat_([a-z|_-]+):calls=(\\d+)");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    RedisProbe(String uri) {
        RedisURI target = RedisURI.create(uri);
        target.setTimeout(Duration.ofSeconds(10));
        client = RedisClient.create(target);
        connection = client.connect();
        redis = connection.sync();
    }

    /** Commands Redis has run since its start, every client's, without this probe's own INFO. */
    long commandsRun() {
        long total = 0;
        Matcher m = CALLS.matcher(redis.info("commandstats"));
        while (m.find()) {
            if (!m.group(1).equals("info")) {
                total += Long.parseLong(m.group(2));
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
