package io.cachegate.gateway.request;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.OpenAiRequest;
import java.util.Arrays;
import java.util.function.Function;

/**
 * The byte-identical fast path's memory: request bodies seen recently, by endpoint and exact bytes, with what they
 * mean ({@link BodyFacts}). Most repeats are the same bytes from the same client code; such a repeat skips the JSON
 * parse, and the stages that derive from the body alone (the cache key, the sensitive-data scan) read their earlier
 * result. One memo per policy generation: a reload starts an empty one. Bounded by weight (about four times the
 * bodies' bytes, for the parsed trees); Caffeine's admission keeps a flood of one-off bodies from evicting the
 * repeated ones. A body is found by its bytes, compared in full: a hash only picks the bucket.
 */
final class BodyMemo {

    /** Larger bodies are parsed each time: few repeat byte for byte, and each would take much of the memo. */
    static final int MAX_BODY_BYTES = 64 * 1024;
    static final long MAX_WEIGHT = 64L << 20;
    /** The parsed tree's size, roughly, per byte of JSON; and what an entry costs besides. */
    private static final int TREE_FACTOR = 4;
    private static final int ENTRY_OVERHEAD = 256;

    private final Cache<Body, BodyFacts> memo;

    BodyMemo(long maxWeight) {
        this.memo = Caffeine.newBuilder()
                .maximumWeight(maxWeight)
                .weigher((Body body, BodyFacts facts) -> body.bytes.length * TREE_FACTOR + ENTRY_OVERHEAD)
                .executor(Runnable::run) // eviction work stays on the event loop that caused it: small and bounded
                .build();
    }

    /**
     * The facts of {@code bytes} sent to {@code endpoint}: remembered ones, or {@code parse}'s (which may throw a
     * 400; a body that fails is not remembered). A body over {@link #MAX_BODY_BYTES} is parsed and not kept.
     */
    BodyFacts facts(Endpoint endpoint, byte[] bytes, Function<byte[], OpenAiRequest> parse) {
        if (bytes.length > MAX_BODY_BYTES) {
            return new BodyFacts(parse.apply(bytes));
        }
        Body key = new Body(endpoint, bytes);
        BodyFacts known = memo.getIfPresent(key);
        if (known != null) {
            return known;
        }
        BodyFacts facts = new BodyFacts(parse.apply(bytes));
        memo.put(key, facts);
        return facts;
    }

    long size() {
        return memo.estimatedSize();
    }

    /**
     * A body's bytes as a key. Comparable, so that bodies crafted to share a hash cost a tree search in the map's
     * bin, not a list walk.
     */
    private static final class Body implements Comparable<Body> {
        private final Endpoint endpoint;
        private final byte[] bytes;
        private final int hash;

        Body(Endpoint endpoint, byte[] bytes) {
            this.endpoint = endpoint;
            this.bytes = bytes;
            this.hash = 31 * endpoint.hashCode() + Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Body other && hash == other.hash && endpoint == other.endpoint
                    && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public int compareTo(Body other) {
            int byEndpoint = endpoint.compareTo(other.endpoint);
            return byEndpoint != 0 ? byEndpoint : Arrays.compare(bytes, other.bytes);
        }
    }
}
