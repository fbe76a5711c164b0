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
 * @param prompt the prompt text for prefix affinity, rendered the same way for every request of a
 *     route (system prompt first, then the turns in order); ignored when {@code blocks} is present
 * @param blocks precomputed hashes (see {@link ReplicaSet#prefixHashes}), e.g. hashed off the event loop
 * @param exclude replicas not to use, e.g. those already tried by a retry
 */
public record RoutingRequest(long tokenCost, Optional<String> prompt, Optional<PrefixHashes> blocks, Set<URI> exclude) {

    public RoutingRequest {
        if (tokenCost < 0) {
            throw new IllegalArgumentException("tokenCost must not be negative, was " + tokenCost);
        }
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(blocks, "blocks");
        exclude = Set.copyOf(exclude);
    }

    /** A request with no prompt (no prefix affinity) and no exclusions. */
    public static RoutingRequest of(long tokenCost) {
        return new RoutingRequest(tokenCost, Optional.empty(), Optional.empty(), Set.of());
    }

    public static RoutingRequest withPrompt(long tokenCost, String prompt) {
        return new RoutingRequest(tokenCost, Optional.of(prompt), Optional.empty(), Set.of());
    }

    public static RoutingRequest withBlocks(long tokenCost, PrefixHashes blocks) {
        return new RoutingRequest(tokenCost, Optional.empty(), Optional.of(blocks), Set.of());
    }

    /** The same request, also excluding {@code replica}: what a retry on another replica asks for. */
    public RoutingRequest excluding(URI replica) {
        Set<URI> more = new HashSet<>(exclude);
        more.add(replica);
        return new RoutingRequest(tokenCost, prompt, blocks, more);
    }

    @Override
    public String toString() {
        // Prompts must not end up in logs.
        return "RoutingRequest[tokenCost=" + tokenCost + ", prompt=" + prompt.map(t -> t.length() + " chars").orElse("none")
                + ", blocks=" + blocks.map(b -> String.valueOf(b.size())).orElse("none") + ", exclude=" + exclude + "]";
    }
}
