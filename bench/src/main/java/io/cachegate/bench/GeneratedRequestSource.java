package io.cachegate.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The seeded chat generator. The n-th request is a pure function of (seed, n), so a run is
 * reproducible whatever thread draws it; encoded bodies are cached once built (when the number of
 * distinct bodies is small enough to keep) so the hot path only picks an index.
 */
final class GeneratedRequestSource implements RequestSource {

    /** Above this many distinct bodies they are encoded per request instead of kept. */
    static final int MAX_CACHED_BODIES = 200_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] WORDS = {
        "cache", "latency", "river", "lantern", "copper", "orbit", "harvest", "signal", "garden", "matrix",
        "winter", "engine", "pattern", "ocean", "ledger", "compass", "forest", "vector", "castle", "thunder",
        "meadow", "kernel", "beacon", "canyon", "pocket", "rhythm", "island", "socket", "marble", "glacier",
        "violet", "anchor", "summit", "tunnel", "cipher", "falcon", "prairie", "quartz", "harbor", "spiral",
        "timber", "voyage", "ember", "mosaic", "nectar", "pillar", "saddle", "trellis", "velvet", "willow",
    };
    private static final String[] ASKS = {
        "Explain in a few sentences how", "Write a short note about", "Summarise what is known about",
        "Give three facts about", "Describe step by step",
    };

    private final GeneratorSpec spec;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicReferenceArray<BenchRequest> cache;

    GeneratedRequestSource(GeneratorSpec spec) {
        this.spec = spec;
        long bodies = 2L * spec.distinctPrompts();
        this.cache = bodies <= MAX_CACHED_BODIES ? new AtomicReferenceArray<>((int) bodies) : null;
    }

    @Override
    public BenchRequest next() {
        long n = sequence.getAndIncrement();
        long h = mix(spec.seed() + n * 0x9E3779B97F4A7C15L);
        int prompt = (int) Long.remainderUnsigned(h, spec.distinctPrompts());
        boolean streaming = spec.streamFraction() >= 1.0
                || (spec.streamFraction() > 0 && unit(mix(h)) < spec.streamFraction());
        return request(prompt, streaming);
    }

    BenchRequest request(int prompt, boolean streaming) {
        if (cache == null) {
            return build(prompt, streaming);
        }
        int slot = 2 * prompt + (streaming ? 1 : 0);
        BenchRequest request = cache.get(slot);
        if (request == null) {
            // Racing builders produce equal requests; whichever lands is kept.
            request = build(prompt, streaming);
            cache.lazySet(slot, request);
        }
        return request;
    }

    /** The text of prompt {@code index}: distinct per index, the same for the same seed. */
    String promptText(int index) {
        SplittableRandom random = new SplittableRandom(mix(spec.seed() ^ mix(index + 1L)));
        StringBuilder text = new StringBuilder(200);
        text.append(ASKS[random.nextInt(ASKS.length)]).append(" item ").append(index).append(':');
        int words = 12 + random.nextInt(24);
        for (int i = 0; i < words; i++) {
            text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.append('.').toString();
    }

    private BenchRequest build(int prompt, boolean streaming) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", spec.model());
        body.putArray("messages").addObject().put("role", "user").put("content", promptText(prompt));
        body.put("temperature", 0);
        body.put("max_tokens", spec.maxTokens());
        if (streaming) {
            body.put("stream", true);
        }
        try {
            return BenchRequest.post(TraceRequestSource.DEFAULT_PATH, JSON.writeValueAsBytes(body), streaming);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SplitMix64's finaliser: a cheap, well-mixed hash of a long. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }
}
