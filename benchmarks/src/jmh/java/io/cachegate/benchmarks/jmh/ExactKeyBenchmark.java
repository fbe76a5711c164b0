package io.cachegate.benchmarks.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CanonicalOptions;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.ContextHash;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.Dialect;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The exact cache's key on every request: the canonical form of a chat request (a parsed body), then
 * SHA-256 over tenant, model version, context hash and those bytes. {@code turns} grows the conversation.
 */
public class ExactKeyBenchmark extends JmhDefaults {

    @Param({"1", "10"})
    int turns;

    private ObjectNode body;
    private byte[] canonical;
    private final ExactKeyFactory keys = new ExactKeyFactory();

    @Setup
    public void setUp() {
        ObjectMapper json = new ObjectMapper();
        body = json.createObjectNode().put("model", "llama-3.1-8b").put("temperature", 0).put("max_tokens", 256)
                .put("stream", true);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", Workloads.text(1200, 1));
        for (int t = 0; t < turns; t++) {
            messages.addObject().put("role", "user").put("content", Workloads.text(300, 10 + t));
            if (t + 1 < turns) {
                messages.addObject().put("role", "assistant").put("content", Workloads.text(600, 100 + t));
            }
        }
        canonical = CanonicalRequest.of(Dialect.CHAT, body, CanonicalOptions.DEFAULTS);
    }

    @Benchmark
    public byte[] canonicalForm() {
        return CanonicalRequest.of(Dialect.CHAT, body, CanonicalOptions.DEFAULTS);
    }

    @Benchmark
    public CacheKey sha256Key() {
        return keys.key("acme", "llama-3.1-8b@2024-07", ContextHash.NONE, canonical);
    }

    @Benchmark
    public CacheKey canonicalFormAndKey() {
        return keys.key("acme", "llama-3.1-8b@2024-07", ContextHash.NONE,
                CanonicalRequest.of(Dialect.CHAT, body, CanonicalOptions.DEFAULTS));
    }
}
