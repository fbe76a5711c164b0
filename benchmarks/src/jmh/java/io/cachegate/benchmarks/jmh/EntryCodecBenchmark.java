package io.cachegate.benchmarks.jmh;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.EntryCodec;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * A cache entry to and from its stored bytes (Redis, the disk tier): a small answer stored as is, and a
 * large one deflated ({@code compress_above} at its default of 4 KiB).
 */
public class EntryCodecBenchmark extends JmhDefaults {

    @Param({"1024", "65536"})
    int bodyBytes;

    private final EntryCodec codec = new EntryCodec(4 << 10);
    private CacheEntry entry;
    private byte[] stored;

    @Setup
    public void setUp() {
        String answer = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
                + "\"model\":\"llama-3.1-8b\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"" + Workloads.text(bodyBytes, 7) + "\"},\"finish_reason\":\"stop\"}]}";
        entry = new CacheEntry(answer.getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L, "llama-3.1-8b@2024-07",
                "req-0123456789abcdef", 120, 240, Set.of("doc:42", "kb:7"));
        stored = codec.encode(entry);
    }

    @Benchmark
    public byte[] encode() {
        return codec.encode(entry);
    }

    @Benchmark
    public CacheEntry decode() {
        return codec.decode(stored);
    }
}
