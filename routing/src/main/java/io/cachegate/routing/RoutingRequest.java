package io.cachegate.routing;

import java.net.URI;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What replica choice needs to know about one request.
 *
 * @param tokenCost the tokens it will occupy on the replica (e.g. prompt estimate + max output tokens)
 * @param blocks the prompt's prefix hashes for prefix affinity (see {@link ReplicaSet#prefixHashes}), hashed
 *     before the request reaches the set (off its lock); empty for none
 * @param exclude replicas not to use, e.g. those already tried by a retry
 * @param kv for {@code balance: kv_aware}, what the replicas' KV-cache events say of the prompt; empty without them
 *     (prefix affinity decides)
 */
public record RoutingRequest(long tokenCost, Optional<PrefixHashes> blocks, Set<URI> exclude,
                             Optional<KvFigures> kv) {

    public RoutingRequest {
        if (tokenCost < 0) {
            throw new IllegalArgumentException("tokenCost must not be negative, was " + tokenCost);
        }
        Objects.requireNonNull(blocks, "blocks");
        exclude = Set.copyOf(exclude);
        Objects.requireNonNull(kv, "kv");
    }

    public RoutingRequest(long tokenCost, Optional<PrefixHashes> blocks, Set<URI> exclude) {
        this(tokenCost, blocks, exclude, Optional.empty());
    }

    /** A request with no prompt blocks (no prefix affinity) and no exclusions. */
    public static RoutingRequest of(long tokenCost) {
        return new RoutingRequest(tokenCost, Optional.empty(), Set.of());
    }

    public static RoutingRequest withBlocks(long tokenCost, PrefixHashes blocks) {
        return new RoutingRequest(tokenCost, Optional.of(blocks), Set.of());
    }

    /** A request for {@code balance: kv_aware}, with the blocks for the fallback's prefix index too. */
    public static RoutingRequest withKv(long tokenCost, PrefixHashes blocks, KvFigures kv) {
        return new RoutingRequest(tokenCost, Optional.of(blocks), Set.of(), Optional.of(kv));
    }

    /** The same request, also excluding {@code replica}: what a retry on another replica asks for. */
    public RoutingRequest excluding(URI replica) {
        Set<URI> more = new HashSet<>(exclude);
        more.add(replica);
        return new RoutingRequest(tokenCost, blocks, more, kv);
    }
}
