package io.cachegate.benchmarks.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.SseReplay;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/** A cached chat answer replayed as an SSE stream, for a hit on a streamed request, with and without usage. */
public class SseReplayBenchmark extends JmhDefaults {

    @Param({"256", "4096"})
    int answerChars;

    @Param({"false", "true"})
    boolean includeUsage;

    private JsonNode document;

    @Setup
    public void setUp() {
        ObjectNode d = new ObjectMapper().createObjectNode().put("id", "chatcmpl-1").put("object", "chat.completion")
                .put("created", 1_700_000_000L).put("model", "llama-3.1-8b");
        d.putArray("choices").addObject().put("index", 0).put("finish_reason", "stop").putObject("message")
                .put("role", "assistant").put("content", Workloads.text(answerChars, 3));
        d.putObject("usage").put("prompt_tokens", 120).put("completion_tokens", answerChars / 4)
                .put("total_tokens", 120 + answerChars / 4);
        document = d;
    }

    @Benchmark
    public List<byte[]> events() {
        return SseReplay.events(document, includeUsage);
    }
}
